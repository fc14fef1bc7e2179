"""The peer: junitparser's whole-tree `JUnitXml.fromfile` over the same files.

Each replay file is parsed into a tree, then every case is visited and its results read,
the way a gate built on the whole-tree API would. One tree is alive at a time. Prints the
same JSON as the floor.

Usage: python bench/peer.py REPORTS_DIR
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

from junitparser import Error, Failure, JUnitXml, Skipped


def read_cases(path: Path) -> Iterator[tuple[str, str]]:
    """(id, outcome) of every testcase in one JUnit file, outcome one of pass/fail/skip."""
    for suite in JUnitXml.fromfile(str(path)):
        for case in suite:
            results = case.result
            if any(isinstance(result, Failure | Error) for result in results):
                outcome = "fail"
            elif any(isinstance(result, Skipped) for result in results):
                outcome = "skip"
            else:
                outcome = "pass"
            yield f"{case.classname}::{case.name}", outcome


def main() -> None:
    counts = {"pass": 0, "fail": 0, "skip": 0}
    id_chars = 0
    for path in sorted(Path(sys.argv[1]).glob("run-*.xml")):
        for test_id, outcome in read_cases(path):
            counts[outcome] += 1
            id_chars += len(test_id)
    print(json.dumps({"occurrences": counts, "id_chars": id_chars}, sort_keys=True))


if __name__ == "__main__":
    main()
