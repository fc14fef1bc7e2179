"""Assertion tests of the example: one passes, one flips between replays, one always fails."""

import json
import os
from pathlib import Path

from slugify import slugify

CASES = json.loads((Path(__file__).parents[2] / "fixtures" / "slugs.json").read_text())


def test_known_slugs() -> None:
    for case in CASES:
        assert slugify(case["text"]) == case["slug"]


def _replay_number() -> int:
    """The replay's number: WAIVER_REPLAY where waiver replay or a workflow's matrix sets
    it (a fresh workspace per replay counts nothing), else a counter file."""
    given = os.environ.get("WAIVER_REPLAY")
    if given:
        return int(given)
    counter = Path(os.environ.get("DEMO_COUNTER", ".demo-counter"))
    count = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(count))
    return count


def test_round_trip() -> None:
    # Flips by the replay's number, not by chance: fails on replays 1, 3 and 5.
    count = _replay_number()
    assert count % 2 == 0, f"replay {count}: the cache was cold"


def test_empty() -> None:
    assert slugify("") == "untitled", "empty text should give a placeholder slug"
