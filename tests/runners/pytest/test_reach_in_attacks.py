"""The code under test grading its own replays from inside them, tried as an attacker would:
the example committed as the base and locked by `waiver lock`, one change commit, `waiver
replay` with the base's harness (`--tests-from BASE`), then the gate with `--trusted-ref
BASE`.

Each change leaves the lock, the harness and every test untouched: it rewrites failing
reports to passed, or weakens the property suite, from modules pytest never collects. The
replays are really laundered (the red test passes them), so only the reach-in scan stands
between the change and a verdict that lets it through.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.change_support import (
    Patch,
    approved,
    commit_base,
    commit_change,
    fix_slugify,
    replay_and_gate,
)
from helpers.support import EMPTY, ROUND_TRIP, classes, git
from waiver.write.summary.summary import render_summary
from waiver.write.words.terminal import render_terminal

# Every test commits a base and a change and replays it with real pytest.
pytestmark = pytest.mark.slow

# Each failing report is made a pass as pytest builds it, so the JUnit file says passed.
REWRITE = """\
    _made = _reports.TestReport.from_item_and_call.__func__

    def _passed(cls, item, call):
        report = _made(cls, item, call)
        report.outcome = "passed"
        return report

    _reports.TestReport.from_item_and_call = classmethod(_passed)
"""
# Way 2: pytest's reports module read from `sys.modules`, which writes nothing there.
READS_SYS_MODULES = (
    'import sys\n\n_reports = sys.modules.get("_pytest.reports")\nif _reports is not None:\n'
    + REWRITE
)
# Way 2: a dynamic import under an alias of its own.
ALIASED_IMPORT = (
    "from importlib import import_module as _load\n\n"
    '_reports = _load("_pytest.reports")\nif True:\n' + REWRITE
)
# Way 3: a plain import, in a module whose folder is named like test code.
SPEEDUPS = "import _pytest.reports as _reports\n\nif True:\n" + REWRITE
# Way 1: one example, always the first, for every property the suite runs after this import.
ONE_EXAMPLE = """\
from hypothesis import settings as _settings

_settings.register_profile("fast", max_examples=1, derandomize=True, database=None)
_settings.load_profile("fast")
"""
HYPOTHESIS_PROPERTY = '''\
"""Slugs never end with a dash, whatever the text."""

from hypothesis import given, strategies

from slugify import slugify


@given(strategies.text(alphabet="ab1 -"))
def test_no_trailing_dash(text: str) -> None:
    assert not slugify(text).endswith("-")
'''
# The break Hypothesis finds: text with a digit in it comes back as it was, with a dash.
DIGIT_BREAK = (
    '    if any(c.isdigit() for c in text):\n        return text + "-"\n    return re.sub('
)


def prepend(work: Path, path: str, text: str) -> None:
    code = work / path
    code.write_text(text + code.read_text())


def reads_sys_modules(work: Path) -> None:
    prepend(work, "slugify.py", READS_SYS_MODULES)


def aliased_import(work: Path) -> None:
    prepend(work, "slugify.py", ALIASED_IMPORT)


def speedups_in_testing(work: Path) -> None:
    (work / "testing").mkdir()
    (work / "testing" / "__init__.py").write_text("")
    (work / "testing" / "speedups.py").write_text(SPEEDUPS)
    prepend(work, "slugify.py", "from testing import speedups  # noqa: F401\n")


def reach_of(report: dict[str, object]) -> list[tuple[str, int, str]]:
    fixtures = report["fixtures"]
    assert isinstance(fixtures, dict)
    return [(r["path"], r["line"], r["what"]) for r in fixtures["runner_reach"]]


@pytest.mark.parametrize(
    ("patch", "named"),
    [
        (
            reads_sys_modules,
            [("slugify.py", 3, "names _pytest.reports"), ("slugify.py", 3, "uses sys.modules")],
        ),
        (
            aliased_import,
            [
                ("slugify.py", 1, "imports by name (import_module)"),
                ("slugify.py", 1, "imports by name (importlib)"),
                ("slugify.py", 3, "names _pytest.reports"),
            ],
        ),
        (speedups_in_testing, [("testing/speedups.py", 1, "names _pytest")]),
    ],
    ids=["sys.modules read", "aliased import_module", "module under testing/"],
)
def test_source_that_rewrites_reports_inside_pytest_blocks_naming_file_and_line(
    tmp_path: Path, patch: Patch, named: list[tuple[str, int, str]]
) -> None:
    work = tmp_path / "demo"
    base = commit_base(work)
    commit_change(work, patch)
    replayed, gated, report = replay_and_gate(work, base, tests_from=True, replays=5)
    # The rewrite works: the red test and the flipping one pass every replay.
    assert replayed == 0
    assert classes(report)[EMPTY] == classes(report)[ROUND_TRIP] == "stable_pass"
    assert (gated, report["verdict"]) == (1, "blocked")
    assert reach_of(report) == named
    (blocker,) = report["run_blockers"]
    assert f"{named[0][0]} line {named[0][1]} {named[0][2]}" in blocker


def hypothesis_base(work: Path) -> None:
    (work / "tests" / "properties" / "test_slug_any_text.py").write_text(HYPOTHESIS_PROPERTY)


@pytest.mark.parametrize("one_example", [False, True], ids=["the break alone", "one example"])
def test_a_profile_that_runs_one_example_blocks_naming_file_and_line(
    tmp_path: Path, one_example: bool
) -> None:
    work = tmp_path / "demo"
    base = commit_base(work, hypothesis_base)

    def change(work: Path) -> None:
        fix_slugify(work)
        code = work / "slugify.py"
        code.write_text(code.read_text().replace("    return re.sub(", DIGIT_BREAK))
        if one_example:
            prepend(work, "slugify.py", ONE_EXAMPLE)

    commit_change(work, change)
    _, gated, report = replay_and_gate(work, base, tests_from=True, replays=5)
    assert gated == 1
    failed = ["tests/properties/test_slug_any_text.py::test_no_trailing_dash"]
    if not one_example:
        assert report["properties"]["failed"] == failed
        assert set(classes(report).values()) == {"property_violation"}
        assert reach_of(report) == []
        return
    # The property ran one example and passed: the reach-in scan names the import, and the
    # settings scan the profile's lines, which no approval admits.
    assert report["properties"]["failed"] == []
    assert classes(report)[EMPTY] == "stable_pass"
    assert report["verdict"] == "blocked"
    assert reach_of(report) == [("slugify.py", 1, "names hypothesis")]
    reach, weakened = report["run_blockers"]
    assert "slugify.py line 1 names hypothesis" in reach
    assert "slugify.py line 4 loads a Hypothesis profile (load_profile)" in weakened


def honest_fix_with_prose(work: Path) -> None:
    fix_slugify(work)
    prepend(
        work,
        "slugify.py",
        '"""Slugs, tested with pytest and Hypothesis; see tests/conftest.py and junit.xml."""\n'
        "# Nothing here touches sys.modules, atexit or WAIVER_JUNIT.\n",
    )


def test_an_honest_fix_that_mentions_the_runner_in_prose_is_no_reach_in(tmp_path: Path) -> None:
    work = tmp_path / "demo"
    base = commit_base(work)
    commit_change(work, honest_fix_with_prose)
    replayed, gated, report = replay_and_gate(work, base, tests_from=True, replays=5)
    assert (replayed, gated, report["verdict"]) == (0, 0, "review")
    assert reach_of(report) == []
    assert report["run_blockers"] == []
    assert classes(report)[EMPTY] == "stable_pass"


def test_an_approval_of_the_head_admits_a_reach_in_and_the_verdict_is_review(
    tmp_path: Path,
) -> None:
    work = tmp_path / "demo"
    base = commit_base(work)
    commit_change(work, reads_sys_modules)
    _, gated, report = replay_and_gate(work, base, tests_from=True, replays=5)
    assert (gated, report["verdict"]) == (1, "blocked")
    assert report["fixtures"]["runner_reach_admitted_by"] is None
    head = git(work, "rev-parse", "HEAD")
    gated, report = approved(work, base, head)
    by = {"login": "maintainer", "review_id": 1, "commit": head}
    assert (gated, report["verdict"], report["run_blockers"]) == (0, "review", [])
    assert report["fixtures"]["runner_reach_admitted_by"] == by
    assert len(reach_of(report)) == 2  # still listed, for the record
    assert "the approval by `maintainer`" in render_summary(report)
    assert "reach into the test runner" in render_terminal(report)
    # An approval of another commit admits nothing.
    gated, report = approved(work, base, "c" * 40)
    assert (gated, report["verdict"]) == (1, "blocked")
    assert report["fixtures"]["runner_reach_admitted_by"] is None


def fix_and_add_a_test_dependency(work: Path) -> None:
    """The fix, with a package the replay jobs' install step would put beside pytest: one
    that registers a plugin pytest loads by itself needs no harness file edited."""
    fix_slugify(work)
    (work / "requirements-dev.txt").write_text("# the test tools\npytest-green==1.0\n")


def test_a_new_test_dependency_blocks_naming_file_and_line(tmp_path: Path) -> None:
    work = tmp_path / "demo"
    base = commit_base(work)
    commit_change(work, fix_and_add_a_test_dependency)
    _, gated, report = replay_and_gate(work, base, tests_from=True, replays=5)
    assert (gated, report["verdict"]) == (1, "blocked")
    assert reach_of(report) == [
        ("requirements-dev.txt", 2, "changes what the replays install (pytest-green==1.0)")
    ]
    assert "what its replays install" in report["run_blockers"][0]
