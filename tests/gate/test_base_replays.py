"""Base replays beside the change's: real pytest runs of the example at its base and patched.

The example as shipped is the base revision. Each test patches a copy, replays both the
base and the change with real pytest runs, and checks what every row says about the pair.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers.support import (
    EMPTY,
    KNOWN,
    REPO,
    ROUND_TRIP,
    check_golden,
    gate_args,
    git,
    load_report,
    rows,
    run_gate,
    run_pytest,
)
from waiver.cli import main
from waiver.github.workflow import render_annotations
from waiver.write.summary.summary import render_summary

# Real pytest runs of the example at its base and patched.
pytestmark = pytest.mark.slow

GOLDEN = REPO / "tests" / "golden" / "summary"
MADE_FLAKY = "tests/assertions/test_pair.py::test_made_flaky"
BROKEN = "tests/assertions/test_pair.py::test_broken"
NEW = "tests/assertions/test_pair.py::test_new"

PAIR_BASE = "def value():\n    return 1\n\n\ndef total(numbers):\n    return sum(numbers)\n"
# The patch reads a counter once per test run, like state leaking between runs, so
# value() is wrong on replays 1, 3 and 5; and it breaks total() outright.
PAIR_PATCHED = """\
import os
from pathlib import Path

_counter = Path(os.environ["PAIR_COUNTER"])
_run = int(_counter.read_text()) + 1 if _counter.exists() else 1
_counter.write_text(str(_run))


def value():
    return 1 if _run % 2 == 0 else 2


def total(numbers):
    return sum(numbers) + 1
"""
PAIR_TESTS = """\
from pair import total, value


def test_made_flaky():
    assert value() == 1


def test_broken():
    assert total([1, 2]) == 3
"""
NEW_TEST = "\n\ndef test_new():\n    assert value() in (1, 2)\n"
SLUG = 'return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")'
# The demo's patch that makes a stable test flip: a per-run "cache" that is cold on
# replays 1, 3 and 5 and then upper-cases the slug.
SLUG_PATCHED = """\
import os
import re
from pathlib import Path

_counter = Path(os.environ.get("SLUG_COUNTER", ".slug-counter"))
_run = int(_counter.read_text()) + 1 if _counter.exists() else 1
_counter.write_text(str(_run))


def slugify(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug if _run % 2 == 0 else slug.upper()
"""


def replay(work: Path, folder: str, *deselected: str, replays: int = 5) -> None:
    """The assertion suite `replays` times into `folder`, each counter starting afresh."""
    for name in (".demo-counter", ".pair-counter", ".slug-counter"):
        (work / name).unlink(missing_ok=True)
    env = {
        **os.environ,
        "DEMO_COUNTER": str(work / ".demo-counter"),
        "PAIR_COUNTER": str(work / ".pair-counter"),
        "SLUG_COUNTER": str(work / ".slug-counter"),
    }
    shutil.rmtree(work / folder, ignore_errors=True)
    for number in range(1, replays + 1):
        run_pytest(
            work,
            "tests/assertions",
            *(f"--deselect={test_id}" for test_id in deselected),
            f"--junitxml={folder}/run-{number}.xml",
            env=env,
        )


def base_of(row: dict[str, Any]) -> tuple[str, int, int]:
    base = row["base"]
    return base["meaning"], base["replay_pass"], base["replay_total"]


def policy(work: Path, text: str) -> list[str]:
    (work / "waiver.yml").write_text(text)
    return ["--config", str(work / "waiver.yml")]


def private_copy(replayed: Path, tmp_path: Path) -> Path:
    work = tmp_path / "demo"
    shutil.copytree(replayed, work)
    return work


@pytest.fixture(scope="module")
def replayed_pair(replayed_example: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example at its base with a second module, then patched: five kinds of row."""
    example = private_copy(replayed_example, tmp_path_factory.mktemp("pair"))
    (example / "pair.py").write_text(PAIR_BASE)
    (example / "tests" / "assertions" / "test_pair.py").write_text(PAIR_TESTS)
    replay(example, "base-reports")
    assert main(["baseline", "--root", str(example), "--reports", str(example / "base-reports"),
                 "--out", str(example / "known-tests.txt")]) == 0  # fmt: skip
    (example / "pair.py").write_text(PAIR_PATCHED)
    with (example / "tests" / "assertions" / "test_pair.py").open("a") as tests:
        tests.write(NEW_TEST)
    replay(example, "reports")
    return example


@pytest.fixture
def pair(replayed_pair: Path, tmp_path: Path) -> Path:
    return private_copy(replayed_pair, tmp_path)


def base_args(work: Path) -> list[str]:
    return ["--base-reports", str(work / "base-reports")]


def test_each_row_says_what_the_base_replays_mean(pair: Path) -> None:
    code, report = run_gate(pair, *base_args(pair))
    assert (code, report["verdict"]) == (1, "blocked")
    found = rows(pair_report := report)
    assert {test_id: (row["class"], base_of(row)) for test_id, row in found.items()} == {
        KNOWN: ("stable_pass", ("none", 5, 5)),
        ROUND_TRIP: ("unstable_assertion", ("already_flaky", 2, 5)),
        EMPTY: ("stable_assertion_fail", ("already_failing", 0, 5)),
        MADE_FLAKY: ("unstable_assertion", ("introduced", 5, 5)),
        BROKEN: ("stable_assertion_fail", ("broken", 5, 5)),
        NEW: ("unknown_test", ("not_on_base", 0, 0)),
    }
    # Evidence only: both unstable rows get a proposal, each carrying its base counts.
    for test_id, base_pass in ((ROUND_TRIP, 2), (MADE_FLAKY, 5)):
        freeze = found[test_id]["freeze"]
        assert (freeze["base_replay_pass"], freeze["base_replay_total"]) == (base_pass, 5)
    assert not any(row["base"]["blocks"] for row in found.values())
    assert pair_report["base"] == {
        "reports": str(pair / "base-reports"),
        "count": 5,
        "read": 5,
        "errors": [],
        "meanings": {
            "introduced": 1,
            "already_flaky": 1,
            "broken": 1,
            "already_failing": 1,
            "not_on_base": 1,
            "base_unknown": 0,
            "none": 1,
        },
    }


def test_base_evidence_changes_no_class_and_no_verdict(pair: Path) -> None:
    code_without, without = run_gate(pair)
    code_with, with_base = run_gate(pair, *base_args(pair))
    assert code_without == code_with
    assert without["counts"] == with_base["counts"]
    assert {t: r["class"] for t, r in rows(without).items()} == {
        t: r["class"] for t, r in rows(with_base).items()
    }


def test_without_base_reports_no_row_has_base_fields(pair: Path) -> None:
    _, report = run_gate(pair)
    assert "base" not in report
    assert all("base" not in row for row in report["rows"])
    assert "base_replay_pass" not in rows(report)[MADE_FLAKY]["freeze"]


def test_the_block_policy_blocks_only_the_instability_the_change_introduced(pair: Path) -> None:
    code, report = run_gate(
        pair, *base_args(pair), *policy(pair, "introduced_instability: block\n")
    )
    assert code == 1
    assert report["policy"]["introduced_instability"] == "block"
    assert report["policy"]["sources"]["introduced_instability"] == "file"
    found = rows(report)
    assert found[MADE_FLAKY]["class"] == "unstable_assertion"
    assert (found[MADE_FLAKY]["freeze"], found[MADE_FLAKY]["base"]["blocks"]) == (None, True)
    assert found[ROUND_TRIP]["freeze"] is not None
    assert not found[ROUND_TRIP]["base"]["blocks"]


def test_an_unreadable_base_replay_leaves_every_row_base_unknown(pair: Path) -> None:
    broken = pair / "base-reports" / "run-3.xml"
    broken.write_bytes(broken.read_bytes()[:200])
    code, report = run_gate(pair, *base_args(pair))
    assert code == 1
    assert {base_of(row)[0] for row in report["rows"]} == {"base_unknown"}
    assert [error["replay"] for error in report["base"]["errors"]] == [3]
    assert rows(report)[MADE_FLAKY]["freeze"] is not None  # review policy: evidence only
    # Under the block policy the unknown base fails closed, even for the test that was flaky.
    _, blocked = run_gate(pair, *base_args(pair), *policy(pair, "introduced_instability: block\n"))
    assert rows(blocked)[ROUND_TRIP]["freeze"] is None
    assert rows(blocked)[ROUND_TRIP]["base"]["blocks"]


def test_short_base_replays_are_base_unknown(pair: Path) -> None:
    for number in (4, 5):
        (pair / "base-reports" / f"run-{number}.xml").unlink()
    _, report = run_gate(pair, *base_args(pair), "--base-replays", "3")
    assert base_of(rows(report)[MADE_FLAKY]) == ("base_unknown", 3, 3)
    assert base_of(rows(report)[NEW]) == ("not_on_base", 0, 0)


def test_base_reports_that_cannot_be_read_are_exit_2_like_the_changes(
    pair: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.rmtree(pair / "base-reports")
    assert main([*gate_args(pair), *base_args(pair)]) == 2
    assert "the base reports folder does not exist" in capsys.readouterr().err
    report = load_report(pair / "waiver.json")
    assert report["blocked"] and report["error"]["source"] == str(pair / "base-reports")


def test_base_replays_written_with_properties_first_are_accepted(pair: Path) -> None:
    """`waiver replay --properties-first` leaves the property report and its log beside them."""
    base = pair / "base-reports"
    (base / "properties.xml").write_text((pair / "properties.xml").read_text())
    (base / "properties.log").write_text("output\n")
    code, report = run_gate(pair, *base_args(pair), "--base-replays", "5")
    assert code == 1
    assert report["base"]["read"] == 5
    assert base_of(rows(report)[MADE_FLAKY]) == ("introduced", 5, 5)


@pytest.mark.parametrize(
    ("folder", "named"), [("reports", "reports folder"), ("base-reports", "base reports folder")]
)
def test_a_stray_file_names_the_folder_it_is_in(
    pair: Path, capsys: pytest.CaptureFixture[str], folder: str, named: str
) -> None:
    stray = pair / folder / "notes.txt"
    stray.write_text("hello\n")
    assert main([*gate_args(pair), *base_args(pair)]) == 2
    assert capsys.readouterr().err == (
        f"waiver: error: {stray}: not a replay (run-<n>.xml or run-<n>/): unexpected in the "
        f"{named}\n"
    )


def _accept(work: Path, *test_ids: str, config: tuple[str, ...] = ()) -> int:
    return main([
        "freeze", "accept", "--report", str(work / "waiver.json"),
        "--store", str(work / "freezes.json"), "--now", "2026-12-01T12:00:00+00:00",
        *config, *test_ids,
    ])  # fmt: skip


def test_freeze_accept_says_when_the_base_shows_the_change_introduced_the_flake(
    pair: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_gate(pair, *base_args(pair))
    (pair / "freezes.json").unlink(missing_ok=True)
    capsys.readouterr()
    assert _accept(pair, MADE_FLAKY, ROUND_TRIP) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == (
        f"waiver: note: the base replays show this change introduced the flake of {MADE_FLAKY} "
        "(base 5/5, change 2/5)"
    )
    assert not any(ROUND_TRIP in line and "note" in line for line in lines)


@pytest.mark.parametrize("where", ["the gate's policy", "the --config policy"])
def test_freeze_accept_refuses_an_introduced_flake_under_the_block_policy(
    pair: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    block = policy(pair, "introduced_instability: block\n")
    run_gate(pair, *base_args(pair), *(block if where == "the gate's policy" else ()))
    (pair / "freezes.json").write_text("[]\n")
    capsys.readouterr()
    config = () if where == "the gate's policy" else tuple(block)
    assert _accept(pair, MADE_FLAKY, config=config) == 2
    assert capsys.readouterr().err == (
        f"waiver: error: {pair / 'waiver.json'}: nothing accepted; {MADE_FLAKY}: the policy says "
        "introduced_instability: block and the base replays show this change introduced the "
        "flake (base 5/5, change 2/5)\n"
    )
    assert (pair / "freezes.json").read_text() == "[]\n"
    # A test the base shows flipping too may still be frozen.
    assert _accept(pair, ROUND_TRIP, config=config) == 0


def test_after_a_failed_property_missing_base_replays_are_no_input_error(pair: Path) -> None:
    (pair / "tests" / "properties" / "test_broken.py").write_text(
        "def test_slug_is_never_empty():\n    assert False\n"
    )
    run_pytest(pair, "tests/properties", "--junitxml=properties.xml")
    shutil.rmtree(pair / "base-reports")
    code, report = run_gate(pair, *base_args(pair))
    assert code == 1
    assert {row["class"] for row in report["rows"]} == {"property_violation"}
    assert "base" not in report


def test_the_block_policy_without_base_replays_blocks_every_unstable_row(pair: Path) -> None:
    code, report = run_gate(pair, *policy(pair, "introduced_instability: block\n"))
    assert code == 1
    assert "base" not in report
    for test_id in (ROUND_TRIP, MADE_FLAKY):
        row = rows(report)[test_id]
        assert (row["freeze"], base_of(row), row["base"]["blocks"]) == (
            None,
            ("base_unknown", 0, 0),
            True,
        )


def test_the_terminal_says_what_the_base_replays_mean(
    pair: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*gate_args(pair), *base_args(pair)]) == 1
    assert capsys.readouterr().out.splitlines()[1] == (
        "waiver: base replays: 1 introduced by this change, 1 already flaky on the base, "
        "1 broken by this change, 1 already failing on the base, 1 not on base"
    )


# --- the demo's patch that makes a stable test flip -----------------------------------


@pytest.fixture(scope="module")
def replayed_flipping(replayed_example: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo without its always-red test, replayed at its base and with the patch."""
    example = private_copy(replayed_example, tmp_path_factory.mktemp("flipping"))
    (example / "known-tests.txt").write_text(f"{KNOWN}\n{ROUND_TRIP}\n")
    replay(example, "base-reports", EMPTY)
    (example / "slugify.py").write_text(SLUG_PATCHED)
    replay(example, "reports", EMPTY)
    return example


@pytest.fixture
def flipping(replayed_flipping: Path, tmp_path: Path) -> Path:
    return private_copy(replayed_flipping, tmp_path)


def test_the_demo_patch_is_review_and_says_introduced_by_this_change(flipping: Path) -> None:
    code, report = run_gate(flipping, *base_args(flipping))
    assert (code, report["verdict"]) == (0, "review")
    found = rows(report)
    assert (found[KNOWN]["class"], base_of(found[KNOWN])) == (
        "unstable_assertion",
        ("introduced", 5, 5),
    )
    assert base_of(found[ROUND_TRIP]) == ("already_flaky", 2, 5)
    assert found[KNOWN]["freeze"] is not None and found[ROUND_TRIP]["freeze"] is not None
    check_golden(GOLDEN / "base-review.md", render_summary(report))


def test_the_demo_patch_under_the_block_policy_is_exit_1_without_its_proposal(
    flipping: Path,
) -> None:
    block = policy(flipping, "introduced_instability: block\n")
    code, report = run_gate(flipping, *base_args(flipping), *block)
    assert (code, report["verdict"]) == (1, "blocked")
    found = rows(report)
    assert found[KNOWN]["freeze"] is None
    assert found[ROUND_TRIP]["freeze"]["base_replay_pass"] == 2  # already flaky: as today
    summary = render_summary(report)
    assert f"- this change made `{KNOWN}` flip: base 5/5, change 2/5" in summary.splitlines()
    check_golden(GOLDEN / "base-blocked.md", summary)
    annotations = render_annotations(report, str(flipping), str(flipping)).splitlines()
    assert [line.split(" ", 1)[0] for line in annotations] == ["::error", "::warning"]
    assert "test_known_slugs: flips between replays, and the base replays" in annotations[0]


# --- the documented local recipe --------------------------------------------------------


def test_the_documented_recipe_replays_the_base_in_a_worktree(example: Path) -> None:
    page = (REPO / "docs" / "base-evidence.md").read_text()
    [recipe] = re.findall(r"```sh\n(.*?)```", page, re.S)
    shutil.rmtree(example / "reports")
    (example / "known-tests.txt").write_text(f"{KNOWN}\n{ROUND_TRIP}\n")
    (example / "tests" / "assertions" / "test_slug.py").write_text(
        (example / "tests" / "assertions" / "test_slug.py")
        .read_text()
        .replace("def test_empty", "def _not_a_test_empty")
    )
    (example / ".demo-counter").unlink()  # the base starts counting afresh
    git(example, "init", "-q")
    git(example, "add", "-A")
    git(example, "commit", "-qm", "base")
    base = git(example, "rev-parse", "HEAD")
    git(example, "update-ref", "refs/remotes/origin/main", base)
    (example / "slugify.py").write_text(SLUG_PATCHED)
    git(example, "commit", "-qam", "the change")
    replay(example, "reports")
    run_pytest(example, "tests/properties", "--junitxml=reports/properties.xml")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "SLUG_COUNTER": str(example / ".slug-counter-base"),
    }
    completed = subprocess.run(
        ["bash", "-e", "-c", recipe],
        cwd=example, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stdout + completed.stderr
    report = load_report(example / "waiver.json")
    assert (report["verdict"], report["trusted_revision"]) == ("review", base)
    assert base_of(rows(report)[KNOWN]) == ("introduced", 5, 5)
    assert base_of(rows(report)[ROUND_TRIP]) == ("already_flaky", 2, 5)
    assert not (example.parent / "waiver-base").exists()
