"""Folding runs into the history: the window, the storm line, and the flag's hysteresis,
on runs made by hand; `tests/commands/stores/test_history.py` folds real gate reports, and
`tests/read/stores/test_history_store.py` reads hostile history files."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from waiver.decide.decision import decide
from waiver.decide.history_fold import History, RecordedRun, failure_counts, fold
from waiver.decide.history_rates import ranked, transitions_ewma, with_history
from waiver.decide.policy import Policy
from waiver.model import Case, Evidence

START = datetime(2026, 11, 1, tzinfo=UTC)
OTHERS = tuple(f"t{number}" for number in range(9))
POLICY = Policy(
    min_history_sample=4, flag_failure_rate=0.3, clear_failure_rate=0.1, history_runs=10
)


def run(number: int, tokens: dict[str, str]) -> RecordedRun:
    """Run `number`, an hour after the one before: each id's token (P, U or F)."""
    return RecordedRun(
        commit=f"{number:040x}",
        time=START + timedelta(hours=number),
        fixture_hash="h",
        passing=frozenset(test_id for test_id, token in tokens.items() if token == "P"),
        others={
            test_id: (token, "0/5" if token == "F" else "2/5")
            for test_id, token in tokens.items()
            if token != "P"
        },
    )


def folded(outcomes: str, policy: Policy = POLICY) -> list[History]:
    """The history after each run, where test `x` has the outcome its letter gives and nine
    others pass; `S` is a storm run in which `x` and the nine others fail."""
    histories, history = [], History()
    for number, token in enumerate(outcomes, start=1):
        if token == "S":
            tokens = dict.fromkeys(("x", *OTHERS), "F")
        else:
            tokens = {"x": token, **dict.fromkeys(OTHERS, "P")}
        history = fold(history, run(number, tokens), policy, START + timedelta(hours=number))
        histories.append(history)
    return histories


def test_a_test_is_flagged_at_the_threshold_and_cleared_only_below_the_lower_one() -> None:
    histories = folded("FPPPU" + "P" * 10)
    flagged = [history.tests["x"].flagged for history in histories]
    # 1/4 (25%) is below the flag line; 2/5 reaches it; 2/10 and then 1/10 (10%, not below
    # the clear line) keep the flag; 0/10 clears it.
    assert flagged == [False] * 4 + [True] * 10 + [False]


def test_a_rate_between_the_lines_keeps_the_state_it_had() -> None:
    # 2 of 10 (20%) never flags a test that was not flagged.
    assert not any(h.tests["x"].flagged for h in folded("PPPPPPPPUU"))


def test_fewer_runs_than_the_minimum_sample_never_flag() -> None:
    assert not any(h.tests["x"].flagged for h in folded("FFF"))


def test_a_storm_run_is_recorded_and_left_out_of_the_rates() -> None:
    history = folded("PPPPSP")[-1]
    assert [kept.storm for kept in history.runs] == [False] * 4 + [True, False]
    assert history.tests["x"].trace == "PPPPFP"
    # Its only failure was in the storm: five runs, none failed, nothing to rank.
    assert failure_counts(history, history.tests["x"]) == (5, 0, 0)
    assert ranked(history, POLICY) == []


def test_the_storm_line_is_more_than_the_share() -> None:
    # 8 of 10 failing is 80%, not more than 80%: no storm.
    tokens = {**dict.fromkeys(OTHERS[:7], "F"), "x": "F", "y": "P", "z": "P"}
    history = fold(History(), run(1, tokens), Policy(), START)
    assert not history.runs[0].storm


def test_the_window_of_runs_and_of_days_bounds_the_history() -> None:
    history = folded("U" + "P" * 11)[-1]
    assert (len(history.runs), history.tests["x"].trace) == (10, "P" * 10)
    assert history.tests["x"].details == ()
    later = fold(history, run(400, {"x": "P"}), POLICY, START + timedelta(days=40))
    assert [kept.time for kept in later.runs] == [START + timedelta(hours=400)]


def test_the_same_run_twice_counts_once() -> None:
    history = folded("PU")[-1]
    again = fold(history, run(2, {"x": "U"}), POLICY, START)
    assert again is history


def test_a_late_run_is_folded_in_at_its_place_in_time() -> None:
    history = folded("PP")[-1]
    late = fold(history, run(0, {"x": "U", "new": "F"}), POLICY, START)
    assert late.tests["x"].trace == "UPP"
    assert (late.tests["new"].trace, late.tests["new"].details) == ("F..", ("0/5",))


def test_the_flaky_test_ranks_above_the_one_that_became_stable() -> None:
    history = History()
    policy = Policy(min_history_sample=4, history_runs=8)
    flaky, fixed = "PUPPUPUPPUPU", "FFPPPPPPPPPP"
    for number, (a, b) in enumerate(zip(flaky, fixed, strict=True), start=1):
        history = fold(history, run(number, {"flaky": a, "fixed": b}), policy, START)
    first, second = ranked(history, policy)
    assert (first.test_id, first.flagged, first.became_stable) == ("flaky", True, False)
    assert (second.test_id, second.flagged, second.became_stable) == ("fixed", False, True)
    assert first.flipped == 4 and first.runs == 8


def test_transitions_weigh_the_newest_run_most() -> None:
    assert transitions_ewma("PPPP", 0.1) == 0.0
    assert transitions_ewma("PF", 0.5) == 0.5
    assert transitions_ewma("PFF", 0.5) == 0.25
    assert transitions_ewma("P.F", 0.5) == 0.5  # a run it did not run in is no transition


OUTCOMES = st.lists(st.booleans(), min_size=0, max_size=6).map(tuple)
TOKENS = st.sampled_from("PUF")


@settings(max_examples=200, deadline=None)
@given(
    cases=st.lists(st.tuples(OUTCOMES, st.booleans(), st.booleans()), min_size=1, max_size=8),
    traces=st.lists(st.lists(TOKENS, min_size=1, max_size=8), min_size=1, max_size=8),
)
def test_the_history_never_changes_a_class_blocked_or_the_verdict(
    cases: list[tuple[tuple[bool, ...], bool, bool]], traces: list[list[str]]
) -> None:
    ids = [f"t{number}" for number in range(len(cases))]
    built = [
        Case((test_id,), Evidence(True, "h", "h", outcomes, known, edited=edited))
        for test_id, (outcomes, known, edited) in zip(ids, cases, strict=True)
    ]
    decision = decide(built, Policy(), START)
    history = History()
    for number, trace in enumerate(zip(*traces, strict=False), start=1):
        tokens = dict(zip(ids, trace, strict=False))
        history = fold(history, run(number, tokens), POLICY, START + timedelta(hours=number))
    shown = with_history(decision, history)
    assert (shown.blocked, shown.verdict, shown.counts) == (
        decision.blocked,
        decision.verdict,
        decision.counts,
    )
    for before, after in zip(decision.rows, shown.rows, strict=True):
        assert (after.test_class, after.freeze, after.unknown) == (
            before.test_class,
            before.freeze,
            before.unknown,
        )
