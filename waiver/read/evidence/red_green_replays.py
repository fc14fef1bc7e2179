"""The reports of red-green replays, read back: per test, how many replays on the base's code
it passed, of how many gave it an outcome, and why any gave none (`waiver red-green`)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from waiver.errors import InputError
from waiver.read.junit.replay_reports import Limits
from waiver.read.junit.stream import FAIL, PASS, CaseFile, read_junit
from waiver.read.junit.testid import TestIdRule
from waiver.read.untrusted.files import open_regular, read_chunks


@dataclass
class Seen:
    """What one replay's report says of each wanted id."""

    outcomes: dict[str, bool]
    errored: set[str]  # ids whose module failed to be collected

    def take(self, found: Seen) -> None:
        """Add what another report of the same replay said."""
        self.outcomes.update(found.outcomes)
        self.errored |= found.errored


# The (classname, name) of the failed case by which a report says a test file could not be
# loaded (`waiver.runners.base.Runner.load_failure`); None where the runner writes none.
LoadFailure = Callable[[str], tuple[str, str] | None]


def read_replay(path: str, wanted: Sequence[str], rule: TestIdRule, unloaded: LoadFailure) -> Seen:
    """What one report says of the `wanted` ids, read with the runner's `rule`: a test fails
    a replay unless every occurrence of it passed, and a test whose file failed to load
    (`unloaded`) errored."""
    by_failure: dict[tuple[str, str], list[str]] = {}
    for test_id in wanted:
        key = unloaded(test_id.partition("::")[0])
        if key is not None:
            by_failure.setdefault(key, []).append(test_id)
    want = set(wanted)
    seen = Seen({}, set())
    # A runner that reads the `file` of a case (mocha's) is given it.
    files = None if rule.case_id is None else CaseFile()

    def sink(suite: str, classname: str, name: str, outcome: int, _r: int, _m: str) -> None:
        if outcome == FAIL and (classname, name) in by_failure:
            seen.errored.update(by_failure[classname, name])  # its file failed to load
            return
        if files is None:
            test_id = rule(suite, classname, name)
        else:
            test_id = rule.with_file(suite, classname, name, files.path, files.own)
        if test_id not in want or outcome not in (PASS, FAIL):
            return
        # Every occurrence must pass, as for any replay.
        seen.outcomes[test_id] = seen.outcomes.get(test_id, True) and outcome == PASS

    chunks = read_chunks(open_regular(path, path), Limits().max_report_bytes, path)
    read_junit(chunks, path, sink, files=files)
    return seen


def tally(
    tests: Sequence[str], replays: Sequence[Seen | str], count: int
) -> list[dict[str, object]]:
    """Per test: base replays passed, of those that gave an outcome, and why any did not.
    A replay is a `Seen`, or why it left no usable report."""
    rows: list[dict[str, object]] = []
    for test_id in tests:
        passed = total = errored = 0
        missing = []
        for number, replay in enumerate(replays, start=1):
            if isinstance(replay, str):
                missing.append(f"replay {number} {replay}")
            elif test_id in replay.outcomes:
                total += 1
                passed += replay.outcomes[test_id]
            elif test_id in replay.errored:
                total += 1
                errored += 1
            else:
                missing.append(f"replay {number} did not run it (is it on the base's harness?)")
        rows.append(
            {
                "test_id": test_id,
                "base_pass": passed,
                "base_total": total,
                "errored": errored,
                "result": _result(passed, total, count),
                "why": "; ".join(missing[:3]) if missing else None,
            }
        )
    return rows


def _result(passed: int, total: int, count: int) -> str:
    if total < count:
        return "not_run"
    return "red" if passed == 0 else "green" if passed == total else "flaky"


def read_replayed(
    folder: str, count: int, tests: Sequence[str], rule: TestIdRule, unloaded: LoadFailure
) -> list[Seen | str]:
    """The replays another process ran, as the reusable workflow's red-green job runs them:
    `run-<n>/` in `folder`, one JUnit file per test module. The ids are the change's test
    modules', so `rule` names them from the change's checkout, as the tree would."""
    replays: list[Seen | str] = []
    for number in range(1, count + 1):
        run = os.path.join(folder, f"run-{number}")
        if not os.path.isdir(run) or os.path.islink(run):
            replays.append("left no report")
            continue
        seen = Seen({}, set())
        try:
            for name in sorted(os.listdir(run)):
                seen.take(read_replay(os.path.join(run, name), tests, rule, unloaded))
        except InputError as error:
            replays.append(f"left an unreadable report: {error.problem}")
            continue
        replays.append(seen)
    return replays
