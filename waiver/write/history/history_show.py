"""`waiver history show`'s renderings of a history: the JSON document
(waiver/schemas/waiver-history.schema.json), the Markdown for a job summary, and the
terminal's view. Each test's trend is a text sparkline, one character a run; Markdown
adds a Mermaid chart of the tests that flip most, which GitHub draws.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TypedDict

from waiver.decide.history_fold import History
from waiver.decide.history_rates import TestRates
from waiver.decide.policy import Policy
from waiver.write.history.history_file import HistoryRunJson, run_json
from waiver.write.report.report_sections import timestamp
from waiver.write.summary.budget import Budget, table
from waiver.write.words.escape import md_code, visible_text

HISTORY_SCHEMA_VERSION = 1
SUMMARY_LIMIT = 1_000_000  # under GitHub's 1 MiB step summary
SHOWN_TESTS = 50  # tests the Markdown and the terminal list; the JSON has them all
CHARTS = 3  # Mermaid charts: the tests that flip most
POLICY_KEYS = (
    "history_runs",
    "history_days",
    "flag_failure_rate",
    "clear_failure_rate",
    "min_history_sample",
    "storm_failure_share",
    "ewma_lambda",
)
# The bar of a run in the sparkline: how many of its replays failed, in eighths.
BARS = "▁▂▃▄▅▆▇█"
ABSENT_MARK, STORM_MARK, OTHER_MARK = "·", "x", "?"


def _failed_share(text: str) -> float:
    passed, _, total = text.rstrip("iabfnux").partition("/")
    return 1 - int(passed) / int(total) if int(total) else 1.0


def sparkline(history: History, rates: TestRates) -> str:
    """One character a run, oldest first: `·` not run, `x` a storm, `?` not judged by its
    replays (unknown, drift, a property), else a bar as high as its failed replays."""
    details = iter(rates.details)
    marks = []
    for run, token in zip(history.runs, rates.trace, strict=True):
        text = next(details) if token in "UFKDV" else ""
        if token == ".":
            marks.append(ABSENT_MARK)
        elif run.storm:
            marks.append(STORM_MARK)
        elif token == "P":
            marks.append(BARS[0])
        elif token in "UF":
            marks.append(BARS[max(1, round(_failed_share(text) * (len(BARS) - 1)))])
        else:
            marks.append(OTHER_MARK)
    return "".join(marks)


def failed_shares(history: History, rates: TestRates) -> list[int]:
    """Per run, the percentage of its replays that failed (0 when it passed or did not run)."""
    details = iter(rates.details)
    shares = []
    for run, token in zip(history.runs, rates.trace, strict=True):
        text = next(details) if token in "UFKDV" else ""
        failing = token in "UF" and not run.storm
        shares.append(round(100 * _failed_share(text)) if failing else 0)
    return shares


def _rate(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


class ClassCountsJson(TypedDict):
    unstable_assertion: int
    stable_assertion_fail: int


class RatesJson(TypedDict):
    """One test's rates over the history, as the JSON document lists it."""

    test_id: str
    runs: int
    flipped: int
    failed: int
    flip_rate: float | None
    transitions: float | None
    score: float | None
    failure_rate: float | None
    flagged: bool
    became_stable: bool
    classes: ClassCountsJson
    arrived_with_change: int
    there_before: int
    trend: str


class HistoryShowJson(TypedDict):
    """What `waiver history show --json` writes (waiver/schemas/waiver-history.schema.json)."""

    schema_version: int
    policy: dict[str, object]
    tests_tracked: int
    runs: list[HistoryRunJson]
    tests: list[RatesJson]
    flagged: list[str]
    became_stable: list[str]


def history_show_json(
    history: History, ranked: Sequence[TestRates], policy: Policy
) -> HistoryShowJson:
    runs = history.runs
    return {
        "schema_version": HISTORY_SCHEMA_VERSION,
        "policy": {key: getattr(policy, key) for key in POLICY_KEYS},
        "tests_tracked": len(history.tests),
        "runs": [run_json(run) for run in runs],
        "tests": [
            {
                "test_id": rates.test_id,
                "runs": rates.runs,
                "flipped": rates.flipped,
                "failed": rates.failed,
                "flip_rate": _rate(rates.flip_rate),
                "transitions": _rate(rates.transitions),
                "score": _rate(rates.score),
                "failure_rate": _rate(rates.failure_rate),
                "flagged": rates.flagged,
                "became_stable": rates.became_stable,
                "classes": {
                    "unstable_assertion": rates.flipped,
                    "stable_assertion_fail": rates.failed,
                },
                "arrived_with_change": rates.arrived_with_change,
                "there_before": rates.there_before,
                "trend": sparkline(history, rates),
            }
            for rates in ranked
        ],
        "flagged": sorted(rates.test_id for rates in ranked if rates.flagged),
        "became_stable": sorted(rates.test_id for rates in ranked if rates.became_stable),
    }


def render_history_show_json(document: HistoryShowJson) -> str:
    return json.dumps(document, indent=2) + "\n"


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"


def _headline(history: History, policy: Policy) -> str:
    runs = history.runs
    if not runs:
        return "No runs recorded yet."
    storms = sum(run.storm for run in runs)
    return (
        f"{len(runs)} runs from {timestamp(runs[0].time)} to {timestamp(runs[-1].time)}, "
        f"{len(history.tests)} tests. {storms} storm run{'' if storms == 1 else 's'} "
        f"(more than {_percent(policy.storm_failure_share)} of the tests that ran failed) "
        "recorded and left out of the rates. Flagged at a failure rate of "
        f"{_percent(policy.flag_failure_rate)} or more over at least "
        f"{policy.min_history_sample} runs, cleared below {_percent(policy.clear_failure_rate)}."
    )


def _mermaid(history: History, rates: TestRates, number: int) -> list[str]:
    """A bar chart of the failed replays per run; the test is named outside the chart, in
    an escaped code span, so that no id can reach Mermaid's syntax."""
    shares = failed_shares(history, rates)
    return [
        "",
        f"Trend {number}: {md_code(rates.test_id)}",
        "",
        "```mermaid",
        "xychart-beta",
        f'    title "Trend {number}: failed replays per run, %"',
        f"    x-axis [{', '.join(str(run) for run in range(1, len(shares) + 1))}]",
        '    y-axis "failed %" 0 --> 100',
        f"    bar [{', '.join(map(str, shares))}]",
        "```",
    ]


def render_history_markdown(history: History, ranked: Sequence[TestRates], policy: Policy) -> str:
    out = Budget(SUMMARY_LIMIT)
    out.add("## Test history of the default branch")
    out.add("")
    out.add(_headline(history, policy))
    shown = ranked[:SHOWN_TESTS]
    left_out = len(ranked) - len(shown)
    left_out += table(
        out,
        f"Tests that flip most ({len(ranked)})",
        ["test id", "trend", "flipped", "failed", "failure rate", "transitions (EWMA)", "flagged"],
        [
            [
                md_code(rates.test_id),
                f"`{sparkline(history, rates)}`",
                f"{rates.flipped} of {rates.runs}",
                f"{rates.failed} of {rates.runs}",
                _percent(rates.failure_rate),
                f"{rates.transitions:.3f}",
                "yes" if rates.flagged else "no",
            ]
            for rates in shown
        ],
    )
    table(
        out,
        "Per class, and whether it arrived with a change",
        ["test id", "unstable_assertion", "stable_assertion_fail", "with a change", "before"],
        [
            [
                md_code(rates.test_id),
                str(rates.flipped),
                str(rates.failed),
                str(rates.arrived_with_change),
                str(rates.there_before),
            ]
            for rates in shown
            if rates.flipped or rates.failed
        ],
    )
    stable = [rates for rates in ranked if rates.became_stable]
    table(
        out,
        f"Became stable ({len(stable)}): passed every run of the window since it last failed",
        ["test id", "runs passed"],
        [[md_code(rates.test_id), str(rates.runs)] for rates in stable[:SHOWN_TESTS]],
    )
    for number, rates in enumerate(
        [rates for rates in shown if rates.flipped or rates.failed][:CHARTS], start=1
    ):
        out.add_all(_mermaid(history, rates, number))
    if left_out:
        out.force("")
        out.force(f"{left_out} more tests are in the JSON (`waiver history show --json`).")
    return "\n".join(out.lines) + "\n"


def render_history_terminal(history: History, ranked: Sequence[TestRates], policy: Policy) -> str:
    lines = [_headline(history, policy)]
    for rates in ranked[:SHOWN_TESTS]:
        marks = [
            *(["flagged"] if rates.flagged else []),
            *(["became stable"] if rates.became_stable else []),
        ]
        lines.append(
            f"  {sparkline(history, rates)}  flipped {rates.flipped}/{rates.runs}, "
            f"failed {rates.failed}/{rates.runs}, failure rate {_percent(rates.failure_rate)}, "
            f"transitions {rates.transitions:.3f}"
            + (f" [{', '.join(marks)}]" if marks else "")
            + f"  {visible_text(rates.test_id)}"
        )
    if len(ranked) > SHOWN_TESTS:
        lines.append(f"  … and {len(ranked) - SHOWN_TESTS} more in the JSON")
    return "\n".join(lines) + "\n"
