import sys

from waiver.cli import main

sys.exit(main())
