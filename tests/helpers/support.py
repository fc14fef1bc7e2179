"""Shared test helpers: the bundled example replayed with real pytest, and report validation."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from helpers.junit_support import PASSING_PROPERTIES, case, junit
from waiver.cli import main
from waiver.model import TestClass
from waiver.read.harness.named import Harness
from waiver.read.policy.settings import Flags, effective
from waiver.read.trusted.trees import DiskTree
from waiver.runners.pytest.harness.finder import PYTEST_FINDER
from waiver.runners.pytest.harness.resolve import resolve_harness
from waiver.write.report.report import policy_json

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "demo"
SCHEMA = json.loads((REPO / "waiver" / "schemas" / "waiver-report.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

ROUND_TRIP = "tests/assertions/test_slug.py::test_round_trip"
EMPTY = "tests/assertions/test_slug.py::test_empty"
KNOWN = "tests/assertions/test_slug.py::test_known_slugs"
# The example's failures as pytest words them, as the reader keeps them: on one line.
EMPTY_FAILURE = (
    "AssertionError: empty text should give a placeholder slug assert '' == 'untitled' - untitled"
)
# The flipping test fails on replays 1, 3 and 5: the first of them gives the message.
ROUND_TRIP_FAILURE = "AssertionError: replay 1: the cache was cold assert (1 % 2) == 0"
# The time every gate run of the suite is given, so that freezes and their expiry are fixed.
NOW = "2026-12-01T12:00:00+00:00"


def check_golden(path: Path, text: str) -> None:
    if os.environ.get("WAIVER_REGENERATE") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text, f"differs from {path}"


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Files under `root`, by relative path, as text or bytes; `root` itself."""
    for path, content in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            (root / path).write_bytes(content)
        else:
            (root / path).write_text(content)
    return root


def resolved(root: Path, harness: Harness | None = None) -> list[str]:
    """The harness the resolver finds in the work tree at `root`."""
    return resolve_harness(DiskTree(str(root)), harness or Harness(PYTEST_FINDER))


def load_report(path: Path) -> dict[str, Any]:
    """Every report a test reads is checked against the shipped JSON Schema first."""
    document: dict[str, Any] = json.loads(path.read_text())
    VALIDATOR.validate(document)
    return document


def git(cwd: Path, *args: str) -> str:
    """git with a throwaway identity and no global or system configuration."""
    completed = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@invalid", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"},
    )
    return completed.stdout.strip()


def run_pytest(cwd: Path, *args: str, env: dict[str, str] | None = None) -> int:
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode in (0, 1), completed.stdout + completed.stderr
    return completed.returncode


BROKEN_PROPERTY = "tests/properties/test_broken.py::test_slug_is_never_empty"


def break_a_property(work: Path) -> None:
    """Add to the example under `work` a property that always fails: `BROKEN_PROPERTY`."""
    (work / "tests" / "properties" / "test_broken.py").write_text(
        "def test_slug_is_never_empty():\n    assert False\n"
    )


def replay_example(work: Path, replays: int = 5) -> None:
    """Properties once, then the assertion suite `replays` times, as real pytest runs."""
    run_pytest(work, "tests/properties", "--junitxml=properties.xml")
    replay_assertions(work, replays=replays)


def replay_assertions(
    work: Path, *deselected: str, counter: str = ".demo-counter", replays: int = 5
) -> None:
    """The example's assertion suite `replays` times into reports/, as real pytest runs,
    without the `deselected` test ids; the flipping test counts its runs in `counter`."""
    env = {**os.environ, "DEMO_COUNTER": str(work / counter)}
    for replay in range(1, replays + 1):
        run_pytest(
            work,
            "tests/assertions",
            *(f"--deselect={test_id}" for test_id in deselected),
            f"--junitxml=reports/run-{replay}.xml",
            env=env,
        )


def gate_args(
    work: Path,
    *extra: str,
    reports: str = "reports",
    properties: str = "properties.xml",
    known_tests: bool = True,
    summary: bool = False,
    now: str = NOW,
) -> list[str]:
    """`waiver gate` on the inputs under `work` by their usual names, at `now`; with
    `known_tests` the registry known-tests.txt, with `summary` a summary.md beside the report."""
    return [
        "gate",
        "--root", str(work),
        "--reports", str(work / reports),
        "--properties", str(work / properties),
        "--fixtures", str(work / "fixtures"),
        "--lock", str(work / "fixture.lock"),
        *(["--known-tests", str(work / "known-tests.txt")] if known_tests else []),
        "--out", str(work / "waiver.json"),
        *(["--summary", str(work / "summary.md")] if summary else []),
        "--now", now,
        *extra,
    ]  # fmt: skip


def run_gate(work: Path, *extra: str, **options: Any) -> tuple[int, dict[str, Any]]:
    """`waiver gate` with `gate_args(work, *extra, **options)`: its exit code and report."""
    return main(gate_args(work, *extra, **options)), load_report(work / "waiver.json")


def classes(report: Mapping[str, Any]) -> dict[str, str]:
    return {row["test_id"]: row["class"] for row in report["rows"]}


def rows(report: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The report's rows by test id."""
    return {row["test_id"]: row for row in report["rows"]}


def workflow_step(workflow: Mapping[Any, Any], job: str, name: str) -> dict[str, Any]:
    """The step of `job` named `name` in a workflow document (step names are unique there)."""
    (found,) = [step for step in workflow["jobs"][job]["steps"] if step.get("name") == name]
    return dict(found)


def read_github_output(text: str) -> dict[str, str]:
    """Parses `$GITHUB_OUTPUT` the way the runner does (heredoc and name=value forms)."""
    lines = text.split("\n")
    outputs: dict[str, str] = {}
    index = 0
    while index < len(lines):
        line = lines[index]
        if not line:
            index += 1
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, index + 1)
            outputs[name] = "\n".join(lines[index + 1 : end])
            index = end + 1
        else:
            name, value = line.split("=", 1)
            outputs[name] = value
            index += 1
    return outputs


CASE_HASH = "a" * 64


def case_json(test_id: str, outcomes: list[Any], **changes: Any) -> dict[str, Any]:
    """One entry of the plain cases.json shape, known and on green properties by default."""
    return {
        "test_id": test_id,
        "property_ok": True,
        "fixture_hash": CASE_HASH,
        "expected_fixture_hash": CASE_HASH,
        "outcomes": outcomes,
        "known_test": True,
        **changes,
    }


def write_big_run(
    root: Path, tests: int, flaky: frozenset[int] = frozenset(), replays: int = 5
) -> None:
    """A gate's inputs with `tests` test ids, written directly: a fixture and its lock, a
    passing property report, a registry of every id, and `replays` replays in which every
    test passes but those numbered in `flaky`, which fail on odd replays."""
    import hashlib

    (root / "fixtures").mkdir(parents=True)
    (root / "fixtures" / "a.json").write_text('{"a": 1}')
    digest = hashlib.sha256(b'{"a": 1}').hexdigest()
    (root / "fixture.lock").write_text(f"{digest}  fixtures/a.json\n")
    (root / "properties.xml").write_text(PASSING_PROPERTIES)
    names = [f"pkg.module_{n // 100:04}::test_case_{n:06}" for n in range(tests)]
    (root / "known-tests.txt").write_text("".join(f"{name}\n" for name in sorted(names)))
    (root / "reports").mkdir()
    failure = '<failure message="no">no</failure>'
    for replay in range(1, replays + 1):
        cases = (
            case(f"pkg.module_{n // 100:04}", f"test_case_{n:06}",
                 failure if n in flaky and replay % 2 else "", time="0.01")
            for n in range(tests)
        )  # fmt: skip
        (root / "reports" / f"run-{replay}.xml").write_text(junit(*cases))


def first_caller_workflow(page: Path) -> tuple[str, dict[str, Any]]:
    """The first YAML block of a documentation page: a workflow calling the reusable one,
    as text and as its `waiver` job."""
    [text, *_] = re.findall(r"```yaml\n(.*?)```", page.read_text(), re.DOTALL)
    job: dict[str, Any] = yaml.safe_load(text)["jobs"]["waiver"]
    return text, job


def check_caller_workflow(
    text: str, job: dict[str, Any], folder: Path, reusable: str = "waiver-gate.yml"
) -> None:
    """A documented caller as a user would copy it: it calls the reusable workflow, names
    the waiver to run as it pins it, passes every required input and no unknown one, and
    passes actionlint and zizmor in a repository of its own, a full SHA for the placeholder."""
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / reusable).read_text())
    repository, reference = job["uses"].split(f"/.github/workflows/{reusable}@")
    assert (repository, reference) == ("OWNER/waiver", "FULL_COMMIT_SHA")
    assert (job["with"]["waiver-repository"], job["with"]["waiver-ref"]) == (repository, reference)
    inputs = workflow[True]["workflow_call"]["inputs"]
    required = {name for name, spec in inputs.items() if spec.get("required")}
    assert required <= job["with"].keys() <= inputs.keys()
    lint_workflow(text, folder)


def lint_workflow(text: str, folder: Path) -> None:
    """A documented workflow passes actionlint and zizmor as `.github/workflows/waiver.yml`
    of a repository in `folder`, a full SHA for the placeholder FULL_COMMIT_SHA."""
    workflows = folder / ".github" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "waiver.yml").write_text(text.replace("FULL_COMMIT_SHA", "a" * 40))
    bin_folder = Path(sys.executable).parent
    for argv in (
        [str(bin_folder / "actionlint"), "-no-color", ".github/workflows/waiver.yml"],
        [str(bin_folder / "zizmor"), "--offline", "--no-progress", ".github/workflows/waiver.yml"],
    ):
        completed = subprocess.run(argv, cwd=folder, capture_output=True, text=True, check=False)
        assert completed.returncode == 0, completed.stdout + completed.stderr


def report_document(
    rows: list[tuple[str, str]], skipped: list[str] | None = None
) -> dict[str, Any]:
    """A report document holding just what the summary, annotation, comment and log
    renderers read; rows are (test id, class), blocked when one is neither a pass nor
    unstable, under the declared policy's defaults."""
    counts = {test_class.value: 0 for test_class in TestClass}
    for _, test_class in rows:
        counts[test_class] += 1
    passing = {"stable_pass": 5, "unstable_assertion": 2}
    blocked = any(c not in ("stable_pass", "unstable_assertion") for _, c in rows)
    return {
        "verdict": "blocked" if blocked else "clean",
        "blocked": blocked,
        "min_replays": 5,
        "error": None,
        "counts": counts,
        "rows": [
            {
                "test_id": test_id,
                "class": test_class,
                "replay_pass": passing.get(test_class, 0),
                "replay_total": 5,
                "retries": 0,
                "strict": False,
                "freeze": None,
                "active_freeze": None,
            }
            for test_id, test_class in rows
        ],
        "skipped": skipped or [],
        "fixtures": None,
        "properties": None,
        "replays": None,
        "registry": None,
        "trusted_revision": None,
        "freezes": {"active": [], "void": []},
        "run_blockers": [],
        "policy": policy_json(effective(None, Flags(), ".")),
    }
