"""Red-green evidence beside the decision: each outcome as the contract names it, the policy
that makes an approval need it, and no class or verdict changed without that policy."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers.support import report_document
from waiver.decide.approval import ReviewFacts
from waiver.decide.decision import decide
from waiver.decide.policy import Policy
from waiver.decide.red_green_rules import BaseRun, RedGreenEvidence
from waiver.errors import InputError
from waiver.gate.red_green_evidence import annotate, read_evidence, with_red_green
from waiver.github.comment_body import render_comment
from waiver.model import Admission, Case, Decision, Evidence, RedGreenOutcome
from waiver.read.evidence.red_green_file import parse_red_green
from waiver.read.trusted.protected import FromWorkingTree
from waiver.write.report.report import row_json
from waiver.write.report.report_types import report_of
from waiver.write.summary.summary import render_summary
from waiver.write.words.escape import md_code
from waiver.write.words.terminal import render_terminal

NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)
APPROVAL = Admission("maintainer", 1, "a" * 40)
RED, GREEN, FLAKY, MISSING, KNOWN = (
    "t.py::red",
    "t.py::green",
    "t.py::flaky",
    "t.py::gone",
    "t.py::k",
)
RUNS = {
    RED: BaseRun(0, 5, 5),
    GREEN: BaseRun(5, 5, 5),
    FLAKY: BaseRun(2, 5, 5),
    MISSING: BaseRun(0, 3, 5, why="replay 4 left no usable report"),
}
EVIDENCE = RedGreenEvidence("red-green.json", RUNS)


def case(test_ids: tuple[str, ...], outcomes: tuple[bool, ...], **more: Any) -> Case:
    return Case(test_ids, Evidence(True, "h", "h", outcomes, **more))


CASES = [
    case((RED, GREEN, FLAKY, MISSING), (True,) * 5, known_test=False),
    case((KNOWN,), (True,) * 5, known_test=True, edited=True),
    case(("t.py::plain",), (True,) * 5, known_test=True),
]
FACTS = ReviewFacts(APPROVAL, frozenset({RED, GREEN, FLAKY, MISSING}), False)


def judged(policy: Policy, evidence: RedGreenEvidence | None = EVIDENCE) -> Decision:
    review = with_red_green(FACTS, evidence, policy)
    return annotate(decide(CASES, policy, NOW, review=review), evidence, policy)


def outcomes(decision: Decision) -> dict[str, tuple[str, bool, bool]]:
    return {
        row.test_id: (
            row.red_green.outcome.value,
            row.red_green.blocks,
            row.admitted_by is not None,
        )
        for row in decision.rows
        if row.red_green is not None
    }


def test_each_row_says_its_outcome_and_an_approval_admits_only_red_green() -> None:
    decision = judged(Policy(review_requires=("red_green",)))
    assert outcomes(decision) == {
        RED: ("red_green", False, True),
        GREEN: ("green_green", True, False),
        FLAKY: ("flaky_on_base", True, False),
        MISSING: ("not_run", True, False),
        KNOWN: ("not_run", True, False),  # edited, and not replayed on the base
    }
    assert decision.blocked
    assert decision.rows.find(MISSING).red_green.why == "replay 4 left no usable report"  # type: ignore[union-attr]
    assert decision.rows.find(KNOWN).red_green.why == "no red-green replay of it"  # type: ignore[union-attr]
    # The plain registered test is neither new nor edited: no evidence beside it.
    assert decision.rows.find("t.py::plain").red_green is None  # type: ignore[union-attr]


def test_without_the_policy_the_evidence_changes_nothing() -> None:
    with_evidence, without = judged(Policy()), judged(Policy(), None)
    assert [(r.test_id, r.test_class, r.admitted_by) for r in with_evidence.rows] == [
        (r.test_id, r.test_class, r.admitted_by) for r in without.rows
    ]
    assert (with_evidence.blocked, with_evidence.verdict) == (without.blocked, without.verdict)
    assert not any(r.red_green for r in without.rows)
    assert {o for o, blocks, _ in outcomes(with_evidence).values() if blocks} == set()


def test_under_the_policy_without_evidence_nothing_new_or_edited_is_admitted() -> None:
    decision = judged(Policy(review_requires=("red_green",)), None)
    found = outcomes(decision)
    assert {o for o, _, _ in found.values()} == {"not_run"}
    assert not any(admitted for _, _, admitted in found.values())
    assert decision.rows.find(RED).red_green.why == "no red-green replays were given (--red-green)"  # type: ignore[union-attr]


def test_a_test_that_did_not_pass_on_the_change_is_not_red_green() -> None:
    failing = [case((RED,), (True, False, True, True, True), known_test=False)]
    policy = Policy(review_requires=("red_green",))
    decision = annotate(decide(failing, policy, NOW), EVIDENCE, policy)
    assert decision.rows[0].red_green.outcome is RedGreenOutcome.NOT_RUN  # type: ignore[union-attr]


def test_fewer_base_replays_than_min_replays_are_not_enough() -> None:
    evidence = RedGreenEvidence("f", {RED: BaseRun(0, 3, 3)})
    finding = evidence.judge(RED, True, 5)
    assert (finding.outcome, finding.why) == (
        RedGreenOutcome.NOT_RUN,
        "3 base replays, fewer than min_replays (5)",
    )


def test_a_test_that_errored_on_the_base_is_red_green_and_says_so() -> None:
    finding = RedGreenEvidence("f", {RED: BaseRun(0, 5, 5, errored=5)}).judge(RED, True, 5)
    assert (finding.outcome, finding.why) == (
        RedGreenOutcome.RED_GREEN,
        "errored on the base in 5 replays",
    )


@given(
    st.lists(st.tuples(st.booleans(), st.integers(0, 5)), min_size=1, max_size=6),
    st.booleans(),
)
def test_no_evidence_changes_a_class_or_the_verdict_without_the_policy(
    tests: list[tuple[bool, int]], known: bool
) -> None:
    ids = [f"t.py::test_{n}" for n in range(len(tests))]
    cases = [
        case((test_id,), (True,) * 5 if green else (False,) * 5, known_test=known)
        for test_id, (green, _) in zip(ids, tests, strict=True)
    ]
    evidence = RedGreenEvidence(
        "f", {test_id: BaseRun(p, 5, 5) for test_id, (_, p) in zip(ids, tests, strict=True)}
    )
    facts = ReviewFacts(APPROVAL, frozenset(ids), False)
    plain = decide(cases, Policy(), NOW, review=facts)
    beside = annotate(
        decide(cases, Policy(), NOW, review=with_red_green(facts, evidence, Policy())),
        evidence,
        Policy(),
    )
    assert [replace(r, red_green=None) for r in beside.rows] == list(plain.rows)
    assert (beside.blocked, beside.verdict, beside.counts) == (
        plain.blocked,
        plain.verdict,
        plain.counts,
    )


# --- the file ---------------------------------------------------------------------------

GOOD = {
    "format": "waiver-red-green",
    "version": 1,
    "base": "b" * 40,
    "head": "c" * 40,
    "replays": 5,
    "rows": [{"test_id": RED, "base_pass": 0, "base_total": 5, "errored": 0, "why": None}],
}


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"format": "other"}, "not a file `waiver red-green` wrote"),
        ({"replays": 0}, "replays: expected at least 1"),
        ({"rows": {}}, "rows: expected a list"),
        ({"rows": [{"test_id": RED, "base_pass": 6, "base_total": 5}]}, "do not fit 5 replays"),
        ({"rows": [{"test_id": RED, "base_pass": True, "base_total": 5}]}, "rows[0].base_pass"),
        ({"rows": [GOOD["rows"][0], GOOD["rows"][0]]}, "listed twice"),  # type: ignore[index]
    ],
)
def test_a_file_of_the_wrong_shape_is_an_input_error(change: dict[str, Any], problem: str) -> None:
    with pytest.raises(InputError) as raised:
        parse_red_green(json.dumps({**GOOD, **change}).encode(), "rg.json")
    assert problem in raised.value.problem
    assert raised.value.source == "rg.json"


def test_a_duplicate_key_is_an_input_error() -> None:
    with pytest.raises(InputError, match="duplicate key"):
        parse_red_green(b'{"format": "waiver-red-green", "format": "x"}', "rg.json")


class Revision(FromWorkingTree):
    """The trusted revision `b…b`, without a commit to compare."""

    @property
    def revision(self) -> str:
        return "d" * 40


def test_replays_of_another_base_are_no_evidence(tmp_path: Path) -> None:
    path = tmp_path / "red-green.json"
    path.write_text(json.dumps(GOOD))
    evidence = read_evidence([str(path)], Revision())
    assert evidence is not None
    finding = evidence.judge(RED, True, 5)
    assert (finding.outcome, finding.why) == (
        RedGreenOutcome.NOT_RUN,
        f"replayed on base {'b' * 40}, not the trusted revision {'d' * 40}",
    )
    assert read_evidence([], Revision()) is None
    # The folder `waiver red-green --out` wrote names its file.
    from_folder = read_evidence([str(tmp_path)], Revision())
    assert from_folder is not None and from_folder.runs == evidence.runs


def test_the_shards_files_are_read_as_one(tmp_path: Path) -> None:
    second = {"test_id": GREEN, "base_pass": 5, "base_total": 5, "errored": 0, "why": None}
    paths = [tmp_path / "shard-1.json", tmp_path / "shard-2.json"]
    paths[0].write_text(json.dumps(GOOD))
    paths[1].write_text(json.dumps({**GOOD, "rows": [second]}))
    evidence = read_evidence([str(p) for p in paths], FromWorkingTree())
    assert evidence is not None and sorted(evidence.runs) == sorted([RED, GREEN])
    # Shards of another base, or that both hold a test, are not one run's.
    paths[1].write_text(json.dumps({**GOOD, "base": "e" * 40, "rows": [second]}))
    with pytest.raises(InputError, match=f"base differs from that of {paths[0]}"):
        read_evidence([str(p) for p in paths], FromWorkingTree())
    paths[1].write_text(json.dumps(GOOD))
    with pytest.raises(InputError, match="is in another shard's file too"):
        read_evidence([str(p) for p in paths], FromWorkingTree())


def test_a_folder_of_shard_folders_is_read_as_the_reusable_workflow_downloads_it(
    tmp_path: Path,
) -> None:
    second = {"test_id": GREEN, "base_pass": 5, "base_total": 5, "errored": 0, "why": None}
    for shard, rows in ((1, GOOD["rows"]), (2, [second])):
        folder = tmp_path / "waiver-red-green" / f"waiver-red-green-shard-{shard}"
        folder.mkdir(parents=True)
        (folder / "red-green.json").write_text(json.dumps({**GOOD, "rows": rows}))
    evidence = read_evidence([str(tmp_path / "waiver-red-green")], FromWorkingTree())
    assert evidence is not None and sorted(evidence.runs) == sorted([RED, GREEN])
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match=r"holds no red-green\.json, nor a folder per shard"):
        read_evidence([str(tmp_path / "empty")], FromWorkingTree())


# --- where the reviewer looks -------------------------------------------------------------


def review_report() -> dict[str, Any]:
    decision = judged(Policy(review_requires=("red_green",)))
    document = report_document(
        [(RED, "unknown_test"), (GREEN, "unknown_test"), (KNOWN, "unknown_test")]
    )
    document["rows"] = [row_json(decision.rows.find(t)) for t in (RED, GREEN, KNOWN)]  # type: ignore[arg-type]
    document["registry"] = {
        "used": True,
        "path": "known-tests.txt",
        "edited": [
            {
                "test_id": KNOWN,
                "changes": ["its decorators"],
                "findings": [{"kind": "mark_added", "detail": "`@pytest.mark.skip`"}],
            }
        ],
    }
    document["rows"][1]["test_id"] = "t.py::green`|<b>@x"
    return document


def test_the_summary_terminal_and_comment_show_each_outcome_beside_its_row() -> None:
    document = review_report()
    summary = render_summary(document)
    assert "### Red-green evidence (3): does each new or edited test fail without the change?" in (
        summary
    )
    assert (
        "`green-green: passes on the base too, so it does not exercise the change (base 5/5 "
        "passed); an approval does not admit it (review_requires: red_green)`"
    ) in summary
    # Untrusted text stays inside its code span.
    assert f"| {md_code('t.py::green`|<b>@x')} |" in summary
    lines = render_terminal(document).splitlines()
    assert f"  {RED}: red-green: fails on the base, passes with the change (base 0/5 passed)" in (
        lines
    )
    comment = render_comment(report_of(document), None)
    assert "new; green-green: passes on the base too" in comment
    assert (
        "edited (mark added: `@pytest.mark.skip`); the change's version was not run on the "
        "base's code: no red-green replay of it; an approval does not admit it "
        "(review_requires: red_green)"
    ) in comment
    assert f"  {KNOWN}: its decorators (mark added: `@pytest.mark.skip`)" in lines
