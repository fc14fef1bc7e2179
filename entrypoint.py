"""Entry point of the action's container: `waiver gate` with the action's inputs."""

import os
import sys

from waiver.action_inputs import gate_argv
from waiver.cli import main

if __name__ == "__main__":
    sys.exit(main(gate_argv(os.environ)))
