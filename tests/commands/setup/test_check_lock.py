"""`waiver check-lock` on the bundled example: the gate's lock comparison, before any replay.

Real files and real git repositories; where it matters, the gate runs on the same tree
and must name the same drift.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from helpers.support import git, run_gate, run_pytest
from waiver.cli import main

WARNING = (
    "warning: the lock, registry and freeze store were read from the working tree, which "
    "the change itself can edit; pass --trusted-ref with the base commit to read them from it\n"
)


def check_lock(work: Path, *extra: str) -> int:
    return main(
        ["check-lock", "--root", str(work), "--fixtures", str(work / "fixtures"),
         "--lock", str(work / "fixture.lock"), *extra]
    )  # fmt: skip


def tree(work: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(work)): path.read_bytes()
        for path in sorted(work.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_an_untouched_example_does_not_drift(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = tree(example)
    assert check_lock(example) == 0
    assert capsys.readouterr().out == (
        "waiver: no drift: the fixtures and the test harness match the lock "
        "(4 files, working tree)\n" + WARNING
    )
    assert tree(example) == before  # it writes nothing


def test_an_edited_fixture_drifts_and_is_named(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fixture = example / "fixtures" / "slugs.json"
    fixture.write_bytes(fixture.read_bytes() + b" ")
    assert check_lock(example) == 1
    assert capsys.readouterr().out == (
        "waiver: drift: 1 file differs from the lock (working tree):\n"
        "  fixtures/slugs.json: changed (fixtures)\n" + WARNING
    )


def test_a_new_conftest_drifts_as_harness(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (example / "tests" / "conftest.py").write_text("def pytest_configure(config): pass\n")
    assert check_lock(example) == 1
    assert "  tests/conftest.py: not_in_lock (harness)\n" in capsys.readouterr().out


def test_a_missing_fixture_drifts(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (example / "fixtures" / "inputs.json").unlink()
    assert check_lock(example) == 1
    assert "  fixtures/inputs.json: missing (fixtures)\n" in capsys.readouterr().out


@pytest.mark.parametrize(
    "lock_text",
    ["not a lock line\n", "", f"{'a' * 64}  ../outside.json\n"],
    ids=["malformed", "empty", "outside"],
)
def test_a_bad_lock_is_exit_2(
    example: Path, capsys: pytest.CaptureFixture[str], lock_text: str
) -> None:
    (example / "fixture.lock").write_text(lock_text)
    assert check_lock(example) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("waiver: error: ")


def test_a_missing_lock_and_a_short_trusted_ref_are_exit_2(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (example / "fixture.lock").unlink()
    assert check_lock(example) == 2
    assert "fixture.lock" in capsys.readouterr().err
    assert check_lock(example, "--trusted-ref", "main") == 2
    assert "not a full commit id" in capsys.readouterr().err


def test_the_trusted_lock_sees_a_fixture_the_change_relocked(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    git(example, "init", "-q")
    git(example, "add", "fixtures", "tests", "fixture.lock", "pytest.ini", "slugify.py")
    git(example, "commit", "-qm", "base")
    base = git(example, "rev-parse", "HEAD")
    fixture = example / "fixtures" / "slugs.json"
    fixture.write_bytes(fixture.read_bytes().replace(b"World", b"Worle"))
    assert main(["lock", "--root", str(example), "--fixtures", str(example / "fixtures"),
                 "--property-suite", str(example / "tests" / "properties"),
                 "--out", str(example / "fixture.lock")]) == 0  # fmt: skip
    git(example, "commit", "-qam", "the change rewrites the fixture and the lock")
    capsys.readouterr()

    assert check_lock(example) == 0  # the change's own lock vouches for the change
    assert check_lock(example, "--trusted-ref", base) == 1
    out = capsys.readouterr().out
    assert out.endswith(
        f"waiver: drift: 1 file differs from the lock (trusted revision {base}):\n"
        "  fixtures/slugs.json: changed (fixtures)\n"
    )


def test_the_policy_file_is_read_from_the_trusted_revision(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The trusted policy names a harness glob; the change's policy drops it."""
    policy = example / "waiver.yml"
    policy.write_text('harness: ["*.cfg.py"]\n')
    git(example, "init", "-q")
    git(example, "add", "-A")
    git(example, "commit", "-qm", "base")
    base = git(example, "rev-parse", "HEAD")
    policy.write_text("min_replays: 5\n")
    (example / "tests" / "hook.cfg.py").write_text("print('hooked')\n")
    capsys.readouterr()
    assert check_lock(example, "--config", str(policy)) == 0
    assert check_lock(example, "--config", str(policy), "--trusted-ref", base) == 1
    assert "  tests/hook.cfg.py: not_in_lock (harness)\n" in capsys.readouterr().out


@pytest.mark.slow
def test_a_property_module_the_report_names_is_locked_as_the_gate_locks_it(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new_module = example / "tests" / "properties" / "test_more_properties.py"
    new_module.write_text("def test_more():\n    assert True\n")
    run_pytest(example, "tests/properties", "--junitxml=properties.xml")
    assert check_lock(example) == 0  # without the report, the module is not harness
    assert check_lock(example, "--properties", str(example / "properties.xml")) == 1
    line = "  tests/properties/test_more_properties.py: not_in_lock (harness)\n"
    assert line in capsys.readouterr().out
    _, report = run_gate(example)
    assert report["fixtures"]["drift"] == [
        {"path": "tests/properties/test_more_properties.py", "kind": "not_in_lock",
         "part": "harness"}
    ]  # fmt: skip


CHANGES = {
    "fixture": lambda work: (work / "fixtures" / "slugs.json").write_text("[]\n"),
    "new fixture": lambda work: (work / "fixtures" / "extra.json").write_text("{}\n"),
    "pytest.ini": lambda work: (work / "pytest.ini").write_text("[pytest]\naddopts = -q\n"),
    "root conftest": lambda work: (work / "conftest.py").write_text("x = 1\n"),
    "pyproject table": lambda work: (work / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\naddopts = "-q"\n'
    ),
    "property module": lambda work: (
        work / "tests" / "properties" / "test_slug_properties.py"
    ).write_text("def test_nothing():\n    pass\n"),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_check_lock_names_the_drift_the_gate_names(
    example: Path, capsys: pytest.CaptureFixture[str], change: str
) -> None:
    CHANGES[change](example)
    capsys.readouterr()
    assert check_lock(example) == 1
    out = capsys.readouterr().out
    named = [line for line in out.splitlines() if line.startswith("  ")]
    _, report = run_gate(example)
    drift = report["fixtures"]["drift"]
    gate_lines = [
        f"  {d['path']}{' [' + d['table'] + ']' if 'table' in d else ''}: {d['kind']} ({d['part']})"
        for d in drift
    ]
    assert drift and named == gate_lines


def test_an_untrusted_path_is_printed_inert(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (example / "fixtures" / "x\n::error::forged\n.json").write_text("{}\n")
    assert check_lock(example) == 1
    lines = capsys.readouterr().out.splitlines()
    assert not any(line.lstrip().startswith("::") for line in lines)
    assert "  fixtures/x<U+000A>::error::forged<U+000A>.json: not_in_lock (fixtures)" in lines


def test_check_lock_runs_none_of_the_changes_code(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A conftest and a plugin that would leave a mark if anything imported them."""
    mark = example / "imported"
    hook = f"open({shlex.quote(str(mark))}, 'w').close()\n"
    (example / "conftest.py").write_text(hook)
    (example / "sitecustomize.py").write_text(hook)
    env_before = dict(os.environ)
    assert check_lock(example) == 1
    assert not mark.exists()
    assert dict(os.environ) == env_before
    assert "  conftest.py: not_in_lock (harness)\n" in capsys.readouterr().out
