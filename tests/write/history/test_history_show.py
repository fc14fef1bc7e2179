"""`waiver history show`'s trend of a test: one character a run, oldest first, a bar as high
as the share of its replays that failed, and marks for a run it was not in, a storm, and a
run whose replays did not judge it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from waiver.decide import history_rates
from waiver.decide.history_fold import History, HistoryRun, TestHistory
from waiver.decide.policy import Policy
from waiver.write.history.history_show import failed_shares, sparkline

START = datetime(2026, 11, 1, tzinfo=UTC)


def history(trace: str, details: tuple[str, ...], storms: str) -> tuple[History, TestHistory]:
    """A history of one test, `a::b`, its runs a storm where `storms` has an `x`."""
    runs = tuple(
        HistoryRun(None, START + timedelta(hours=n), None, 10, 1, mark == "x")
        for n, mark in enumerate(storms)
    )
    test = TestHistory(trace, details, False, None)
    return History(runs, {"a::b": test}), test


def test_each_run_is_a_bar_as_high_as_its_failed_replays_or_a_mark() -> None:
    trace = "PU.FUKP"
    details = ("4/5", "0/5", "1/5", "0/0")
    found, test = history(trace, details, "....x..")
    rates = history_rates.test_rates(found, "a::b", test, Policy())
    assert sparkline(found, rates) == "▁▂·█x?▁"
    assert failed_shares(found, rates) == [0, 20, 0, 100, 0, 0, 0]


def test_a_run_whose_every_replay_failed_is_a_full_bar_and_one_that_failed_once_the_lowest() -> (
    None
):
    found, test = history("UU", ("0/8", "7/8"), "..")
    rates = history_rates.test_rates(found, "a::b", test, Policy())
    assert sparkline(found, rates) == "█▂"
