"""Without a known-tests registry, deleting or skipping a red test would pass: the run blocks
unless the policy file says `registry: none` on purpose."""

from __future__ import annotations

from helpers.hostile_support import Repo, Run
from helpers.junit_support import junit
from helpers.support import load_report
from waiver.gate.pipeline import NO_REGISTRY_BLOCKS

GOOD = '<testcase classname="suite.Good" name="test_ok"/>'


def test_a_run_without_a_registry_blocks_and_says_why(repo: Repo, checked_gate: Run) -> None:
    (repo.root / "waiver.yml").write_text("min_replays: 5\n")
    code, out, _ = checked_gate()
    assert code == 1
    assert out.startswith("waiver: blocked;")
    document = load_report(repo.root / "waiver.json")
    assert (document["verdict"], document["blocked"]) == ("blocked", True)
    assert document["run_blockers"] == [NO_REGISTRY_BLOCKS]
    assert [row["class"] for row in document["rows"]] == ["stable_pass"]
    summary = (repo.root / "summary.md").read_text()
    assert f"**Blocked:** {NO_REGISTRY_BLOCKS}." in summary
    assert "**No known-tests registry was given" in summary


def test_a_deleted_red_test_no_longer_passes_without_a_registry(
    repo: Repo, checked_gate: Run
) -> None:
    """The red test is gone from every replay; only the good one is left."""
    (repo.root / "waiver.yml").write_text("min_replays: 5\n")
    for number in range(1, 6):
        repo.replay(number, junit(GOOD))
    code, _, _ = checked_gate()
    assert code == 1


def test_registry_none_in_the_policy_goes_without_on_purpose(repo: Repo, checked_gate: Run) -> None:
    checked_gate(codes=(0,))
    document = load_report(repo.root / "waiver.json")
    assert (document["verdict"], document["run_blockers"]) == ("clean", [])
    assert (document["policy"]["registry"], document["policy"]["sources"]["registry"]) == (
        "none",
        "file",
    )
    summary = (repo.root / "summary.md").read_text()
    assert "**The policy file says `registry: none`" in summary
    assert "**Blocked:**" not in summary


def test_a_registry_flag_wins_over_registry_none(repo: Repo, checked_gate: Run) -> None:
    registry = repo.root / "known-tests.txt"
    registry.write_text("suite.Good::test_ok\nsuite.Gone::test_red\n")
    code, _, _ = checked_gate("--known-tests", str(registry))
    assert code == 1
    document = load_report(repo.root / "waiver.json")
    assert document["run_blockers"] == []
    assert document["policy"]["registry"] == str(registry)
    assert {row["test_id"]: row["class"] for row in document["rows"]} == {
        "suite.Good::test_ok": "stable_pass",
        "suite.Gone::test_red": "unknown_test",
    }
