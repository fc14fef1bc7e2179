"""The change's own tests, run apart on its tree (`--change-tests DIR`): what they may say.

With the change's tests run apart, the verdict replays (`--reports`) ran the base's test tree
against the change's code (SPEC 3.11), and these reports ran the change's new and edited
test files on the change's own tree. They decide no class a registered test the change left
alone gets: they only ever give `unknown_test` rows, for an approval of the head to admit.

- A test the change edited: its row is `edited`, with the change's version's replays from
  here, and beside them its base version's from the verdict replays (`base_version`): did
  the change keep what the test pinned, or break it?
- A test the change deleted (edited, and no outcome here from a run that read whole): its
  row is `vanished`, with what its base version did on the change's code.
- A new test, in no registry: its row is `new`, with its replays from here.

Every other id here (a registered test the change left alone, run because its file was)
is not read. A folder that cannot be read as replays is no input error: the change's own
tests then gave nothing, every edited row says it was not run, and the report says why.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from waiver.errors import InputError
from waiver.model import Case, Evidence
from waiver.read.junit.replay_set import ReplaySet, read_replays
from waiver.read.junit.testid import TestIdRule
from waiver.read.lock.drift import Fixtures
from waiver.read.policy.settings import Settings
from waiver.read.stores.registry import Registry
from waiver.write.report.report_types import ChangeTestsJson

FOLDER = "change's tests"


@dataclass(frozen=True)
class ChangeTests:
    """The reports of the change's own tests, as read; `problem` says why there are none."""

    path: str
    replays: ReplaySet | None
    problem: str | None = None

    def json(self) -> ChangeTestsJson:
        replays = self.replays
        return {
            "reports": self.path,
            "count": 0 if replays is None else replays.replay_count,
            "read": 0 if replays is None else len(replays.tally.replays),
            "errors": []
            if replays is None
            else [
                {"replay": e.replay, "source": e.source, "problem": e.problem}
                for e in replays.errors
            ],
            "problem": self.problem,
        }


def read_change_tests(
    path: str | None, settings: Settings, rule: TestIdRule, expected: int | None
) -> ChangeTests | None:
    """The change's tests' replays (`expected` of them, in any number of files each), or
    None when none were given."""
    if path is None:
        return None
    try:
        replays = read_replays(path, rule, settings.limits, expected, folder=FOLDER)
    except InputError as error:
        return ChangeTests(path, None, f"{error.source}: {error.problem}")
    return ChangeTests(path, replays)


# An id's evidence apart from its fixtures: its outcomes, whether it is registered, whether
# the change edited it, its base version's outcomes, and the unreadable replays.
Key = tuple[tuple[bool, ...], bool, bool, tuple[bool, ...] | None, int]


def change_cases(
    replays: ReplaySet,
    registry: Registry,
    property_ok: bool,
    fixtures: Fixtures,
    edited: frozenset[str],
    change: ChangeTests,
) -> list[Case]:
    """The cases of the tests the change edited or deleted, and of its new tests that only
    its own tests' reports hold."""
    verdict = replays.tally
    found = change.replays
    groups: defaultdict[Key, list[str]] = defaultdict(list)
    unreadable = 0 if found is None else len(found.errors)
    for test_id in sorted(edited):
        position = verdict.index.get(test_id)
        base_version = () if position is None else verdict.outcomes(position)
        if found is None:
            groups[((), True, True, base_version, 0)].append(test_id)
            continue
        own = found.tally.index.get(test_id)
        outcomes = () if own is None else found.tally.outcomes(own)
        # No outcome from reports read whole: the change's tree no longer has the test.
        deleted = not outcomes and not unreadable
        groups[(outcomes, True, not deleted, base_version, unreadable)].append(test_id)
    if found is not None:
        registered = set(registry.vanished)
        for position, test_id in enumerate(found.tally.ids):
            if test_id in verdict.index or test_id in registered or test_id in edited:
                continue
            outcomes = found.tally.outcomes(position)
            if outcomes or unreadable:
                groups[(outcomes, False, False, None, unreadable)].append(test_id)
    cases = []
    for (own_outcomes, known, is_edited, pinned, short), ids in groups.items():
        for (expected_hash, current_hash), bound in fixtures.bound.group(ids).items():
            evidence = Evidence(
                property_ok,
                current_hash,
                expected_hash,
                own_outcomes,
                known,
                unreadable_replays=short,
                edited=is_edited,
                base_version=pinned,
            )
            cases.append(Case(tuple(bound), evidence))
    return cases
