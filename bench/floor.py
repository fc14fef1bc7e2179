"""The floor: the least work that reads (test id, outcome) from every replay.

One `xml.parsers.expat` pass per file with a start and an end handler; no character data,
no aggregation, no checks. Ids are `classname::name`. Prints the outcome counts and the
total length of the ids over all files as JSON, so the runner can check that every
measured reader saw the same cases.

Usage: python bench/floor.py REPORTS_DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from xml.parsers import expat

FAILED_TAGS = frozenset(
    {"failure", "error", "flakyFailure", "flakyError", "rerunFailure", "rerunError"}
)
CHUNK_BYTES = 1 << 16


class Tally:
    """Outcome counts and the total id length over every testcase read."""

    def __init__(self) -> None:
        self.occurrences = {"pass": 0, "fail": 0, "skip": 0}
        self.id_chars = 0

    def as_json(self) -> str:
        return json.dumps(
            {"occurrences": self.occurrences, "id_chars": self.id_chars}, sort_keys=True
        )


def read_cases(path: Path, tally: Tally) -> None:
    """Add (id, outcome) of every testcase in one JUnit file to the tally.

    The handlers update the tally directly: a generator between parser and consumer
    would cost more than the reading it hands over.
    """
    current: list[str] = []
    occurrences = tally.occurrences

    def start(tag: str, attrs: dict[str, str]) -> None:
        if tag == "testcase":
            current[:] = [attrs["classname"] + "::" + attrs["name"], "pass"]
        elif current:
            if tag in FAILED_TAGS:
                current[1] = "fail"
            elif tag == "skipped" and current[1] == "pass":
                current[1] = "skip"

    def end(tag: str) -> None:
        if tag == "testcase":
            test_id, outcome = current
            occurrences[outcome] += 1
            tally.id_chars += len(test_id)
            current.clear()

    parser = expat.ParserCreate()
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    with path.open("rb") as stream:
        while chunk := stream.read(CHUNK_BYTES):
            parser.Parse(chunk, False)
    parser.Parse(b"", True)


def main() -> None:
    tally = Tally()
    for path in sorted(Path(sys.argv[1]).glob("run-*.xml")):
        read_cases(path, tally)
    print(tally.as_json())


if __name__ == "__main__":
    main()
