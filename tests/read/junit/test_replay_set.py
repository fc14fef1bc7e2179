"""Reading a folder of replays: the result is a function of the files alone.

Replays are read by several processes at once when the machine has more than one core;
these properties hold the parallel read to the one-process read and to a plain model of
the rule (a replay passes a test only when every occurrence that ran passed), and of the
first failure message (that of the first failing occurrence in the lowest-numbered
replay that has one).
"""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.junit_support import case, suite
from waiver.errors import InputError
from waiver.read.junit.replay_reports import Limits
from waiver.read.junit.replay_set import ReplaySet, read_replays
from waiver.read.junit.testid import TestIdRule

IDS = ("k::a", "k::b", "m::c", "m::d")
# Each failure names where it stands, as an attribute or as its text.
ELEMENTS = {
    "pass": "",
    "fail": '<failure message="{}"/>',
    "skip": "<skipped/>",
    "flaky": "<flakyError>{}</flakyError>",
}
FAILING = frozenset({"fail", "flaky"})

occurrences = st.lists(
    st.tuples(st.sampled_from(IDS), st.sampled_from(sorted(ELEMENTS))), max_size=8
)
# A replay is its occurrences, or "missing" (no file) or "broken" (a truncated file).
replay_sets = st.lists(st.one_of(occurrences, st.sampled_from(["missing", "broken"])), max_size=5)


def failure_message(replay: int, occurrence: int) -> str:
    return f"replay {replay} occurrence {occurrence}"


def report(cases: list[tuple[str, str]], replay: int) -> str:
    testcases = []
    for occurrence, (test_id, kind) in enumerate(cases, start=1):
        classname, name = test_id.split("::")
        body = ELEMENTS[kind].format(failure_message(replay, occurrence))
        testcases.append(case(classname, name, body))
    return suite(*testcases)


def write_replays(folder: Path, replays: list[list[tuple[str, str]] | str]) -> None:
    for number, replay in enumerate(replays, start=1):
        path = folder / f"run-{number}.xml"
        if replay == "broken":
            path.write_text(report([("k::a", "pass")], number)[:-9])
        elif replay != "missing":
            assert isinstance(replay, list)
            path.write_text(report(replay, number))


def model_outcomes(replays: list[list[tuple[str, str]] | str]) -> dict[str, tuple[bool, ...]]:
    """Per id, the outcome of each readable replay in which it ran, by the rule itself."""
    outcomes: dict[str, list[bool]] = {}
    for replay in replays:
        if isinstance(replay, str):
            continue
        ran: dict[str, bool] = {}
        for test_id, kind in replay:
            outcomes.setdefault(test_id, [])
            if kind != "skip":
                ran[test_id] = ran.get(test_id, True) and kind == "pass"
        for test_id, passed in ran.items():
            outcomes[test_id].append(passed)
    return {test_id: tuple(found) for test_id, found in outcomes.items()}


def model_messages(replays: list[list[tuple[str, str]] | str]) -> dict[str, str]:
    """Per failing id, the message of its first failing occurrence in the lowest-numbered
    readable replay in which it failed."""
    messages: dict[str, str] = {}
    for number, replay in enumerate(replays, start=1):
        if isinstance(replay, str):
            continue
        for occurrence, (test_id, kind) in enumerate(replay, start=1):
            if kind in FAILING and test_id not in messages:
                messages[test_id] = failure_message(number, occurrence)
    return messages


def model_repeats(replays: list[list[tuple[str, str]] | str]) -> dict[str, int]:
    """Per id that more than one testcase of one readable replay names, the most of them."""
    repeats: dict[str, int] = {}
    for replay in replays:
        if isinstance(replay, str):
            continue
        for test_id, count in Counter(test_id for test_id, _ in replay).items():
            if count > 1:
                repeats[test_id] = max(repeats.get(test_id, 0), count)
    return repeats


def read(folder: Path, workers: int, expected: int) -> ReplaySet | str:
    try:
        return read_replays(str(folder), TestIdRule(None), Limits(), expected, workers=workers)
    except InputError as error:
        return f"{error.source}: {error.problem}"


def snapshot(result: ReplaySet | str) -> object:
    if isinstance(result, str):
        return result
    tally = result.tally
    width = len(tally.ids)
    return (
        tally.ids,
        tally.index,
        # A replay's states may end before ids that other replays added: no outcome there.
        [bytes(states) + bytes(width - len(states)) for states in tally.replays],
        tally.retries,
        tally.repeats,
        tally.first_messages(),
        tally.testcases,
        result.replay_count,
        result.errors,
    )


@settings(max_examples=40, deadline=None)
# Two to four cores: the last one to three replays are read fresh, the rest in the middle.
@given(replays=replay_sets, workers=st.integers(2, 4))
def test_parallel_and_single_process_reads_agree_with_the_rule(
    replays: list[list[tuple[str, str]] | str], workers: int
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        write_replays(folder, replays)
        found = any(folder.iterdir())
        single = read(folder, workers=1, expected=len(replays))
        parallel = read(folder, workers=workers, expected=len(replays))
    assert snapshot(parallel) == snapshot(single)
    expected = model_outcomes(replays)
    if not any(expected.values()):
        problem = "no test case ran in any replay" if found else "no replay found in the reports"
        assert isinstance(single, str) and problem in single
        return
    assert isinstance(single, ReplaySet)
    tally = single.tally
    assert {test_id: tally.outcomes(tally.index[test_id]) for test_id in tally.ids} == expected
    assert tally.first_messages() == model_messages(replays)
    assert {tally.ids[p]: count for p, count in tally.repeats.items()} == model_repeats(replays)
    unreadable = [number for number, replay in enumerate(replays, 1) if isinstance(replay, str)]
    assert [error.replay for error in single.errors] == unreadable


@pytest.mark.parametrize("workers", [1, 2])
def test_replays_listing_ids_in_other_orders_line_up_by_id(tmp_path: Path, workers: int) -> None:
    write_replays(
        tmp_path,
        [
            [("k::a", "pass"), ("k::b", "fail")],
            [("m::c", "pass"), ("k::b", "pass"), ("k::a", "fail")],
            [("k::b", "pass")],
        ],
    )
    result = read(tmp_path, workers=workers, expected=3)
    assert isinstance(result, ReplaySet)
    tally = result.tally
    assert tally.ids == ["k::a", "k::b", "m::c"]
    assert [tally.outcomes(position) for position in range(3)] == [
        (True, False),
        (False, True, True),
        (True,),
    ]


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_the_first_message_is_from_the_lowest_numbered_failing_replay(
    tmp_path: Path, workers: int
) -> None:
    """With two or three cores the last replays are read first, at the same time as the
    others, in processes that saw no id before: they list the ids in their own order."""
    write_replays(
        tmp_path,
        [
            [("k::a", "pass"), ("k::b", "pass")],
            [("k::a", "pass"), ("k::b", "flaky")],
            [("m::c", "fail"), ("k::b", "fail"), ("k::a", "fail")],
        ],
    )
    result = read(tmp_path, workers=workers, expected=3)
    assert isinstance(result, ReplaySet)
    assert result.tally.first_messages() == {
        "k::b": "replay 2 occurrence 2",
        "m::c": "replay 3 occurrence 1",
        "k::a": "replay 3 occurrence 3",
    }


def test_without_semaphores_the_replays_are_read_in_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As in a container without /dev/shm, where a process pool cannot make its queues."""

    def no_sem_open(*_args: object) -> None:
        raise OSError(38, "Function not implemented")

    monkeypatch.setattr("_multiprocessing.SemLock", no_sem_open)
    write_replays(tmp_path, [[("k::a", "pass")], [("k::a", "fail")], [("k::a", "pass")]])
    result = read(tmp_path, workers=2, expected=3)
    assert isinstance(result, ReplaySet)
    assert result.tally.outcomes(0) == (True, False, True)
