"""Entry point of the action's container: `waiver gate` with the action's inputs."""

import os
import sys

from waiver.cli import main
from waiver.github.action_inputs import gate_argv

if __name__ == "__main__":
    sys.exit(main(gate_argv(os.environ)))
