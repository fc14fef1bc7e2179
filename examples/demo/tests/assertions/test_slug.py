"""Assertion tests of the example: one passes, one flips between replays, one always fails."""

import json
import os
from pathlib import Path

from slugify import slugify

CASES = json.loads((Path(__file__).parents[2] / "fixtures" / "slugs.json").read_text())


def test_known_slugs() -> None:
    for case in CASES:
        assert slugify(case["text"]) == case["slug"]


def test_round_trip() -> None:
    # Flips by a counter file, not by chance: fails on replays 1, 3 and 5.
    counter = Path(os.environ.get("DEMO_COUNTER", ".demo-counter"))
    count = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(count))
    assert count % 2 == 0, f"replay {count}: the cache was cold"


def test_empty() -> None:
    assert slugify("") == "untitled", "empty text should give a placeholder slug"
