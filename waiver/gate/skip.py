"""When the replays are not needed, and when a missing replay set is one that was skipped.

The seed's order: the property suite, then the lock, then the replays, and only when they
can change the verdict. Once a property failed or a locked file drifted, `waiver replay`
and the reusable workflow run no replay, and the gate classifies every test without them,
saying why, instead of stopping at the missing reports. A reports folder that is simply
missing, on green properties and an unchanged lock, stays an input error: zero replays is
never a green gate.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from waiver.model import TestClass
from waiver.read.lock.drift import Fixtures


@dataclass(frozen=True)
class Skip:
    """Why no replay is needed: the class its cause gives every row it reaches, and the
    cause in plain words (counts only, no untrusted text)."""

    test_class: TestClass
    cause: str  # "2 files differ from the lock"

    @property
    def reason(self) -> str:
        reached = (
            "every test"
            if self.test_class is TestClass.PROPERTY_VIOLATION
            else "every test bound to them"
        )
        return f"{self.cause}, so {reached} is {self.test_class.value} whatever its replays say"


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def replays_not_needed(failed_properties: Sequence[str], fixtures: Fixtures) -> Skip | None:
    """Why replays cannot change the verdict, or None when they can.

    A failed property outranks drift, as it does for the rows.
    """
    if failed_properties:
        failed = _plural(len(failed_properties), "property case", "property cases")
        return Skip(TestClass.PROPERTY_VIOLATION, f"{failed} failed")
    if fixtures.drifted:
        drifted = _plural(len(fixtures.state.drift), "file differs", "files differ")
        return Skip(TestClass.FIXTURE_DRIFT, f"{drifted} from the lock")
    return None


def holds_nothing(reports: str, others: frozenset[str] = frozenset()) -> bool:
    """Whether a reports folder is missing, or holds nothing but `others`: no replay ran."""
    try:
        names = os.listdir(reports)
    except FileNotFoundError:
        return True
    except NotADirectoryError:
        return False
    return all(name in others for name in names)


def replays_were_skipped(
    reports: str, skip: Skip | None, others: frozenset[str] = frozenset()
) -> bool:
    """Whether a replay set that cannot be read is one that was skipped, not an input error.

    After a failed property every row is property_violation whatever the folder holds, so
    nothing in it is an input error. After drift only a folder without any replay is
    skipped: one that holds replays is read, and its errors stand as they would without
    drift.
    """
    if skip is None:
        return False
    return skip.test_class is TestClass.PROPERTY_VIOLATION or holds_nothing(reports, others)


def skipped_blocker(skip: Skip) -> str:
    """The run-level blocker when the replays were skipped and no registry names the tests
    they would have run, so no row can show the cause."""
    return (
        f"the replays were skipped because {skip.cause}, and no known-tests registry names "
        "the tests they would have run"
    )
