"""`waiver diagnose`: commentary on unstable rows from a model (see waiver.diagnose)."""

from __future__ import annotations

import argparse
import os

from waiver.commands.flags import options_of
from waiver.commands.support import seconds, whole_number
from waiver.errors import EXIT_CLEAR
from waiver.write.words.escape import log_line

MAX_ROWS = 20  # with at most twice the timeout per row, this bounds the step's time
MAX_TIMEOUT = 60.0


def run(args: argparse.Namespace) -> int:
    # Imported here: the HTTP client and the report schema cost every other command 0.1 s.
    from waiver.diagnose.run import DiagnoseOptions, run_diagnose

    options = options_of(DiagnoseOptions, args)
    notes = run_diagnose(options, os.environ)
    kept = sum(note["status"] == "accepted" for note in notes)
    print(
        log_line(
            f"waiver: commentary on {len(notes)} unstable rows ({kept} kept) written to "
            f"{options.out}; the report is unchanged"
        )
    )
    return EXIT_CLEAR


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "diagnose",
        help="ask a model for commentary on unstable rows (key from WAIVER_MODEL_API_KEY)",
    )
    parser.add_argument("--report", required=True, metavar="FILE", help="waiver.json, only read")
    parser.add_argument("--endpoint", required=True, metavar="URL", help="OpenAI-compatible API")
    parser.add_argument("--model", required=True, metavar="NAME")
    parser.add_argument("--out", default="diagnosis.json", metavar="FILE")
    parser.add_argument("--max-rows", type=whole_number(1, MAX_ROWS), default=3, metavar="N")
    parser.add_argument("--timeout", type=seconds(MAX_TIMEOUT), default=20.0, metavar="SECONDS")
    parser.add_argument("--summary", metavar="FILE", help="append the Markdown commentary here")
    parser.set_defaults(handler=run)
