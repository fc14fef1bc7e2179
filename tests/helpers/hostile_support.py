"""A minimal repository for hostile-input cases: written directly, no pytest runs needed."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from helpers.junit_support import PASSING_PROPERTIES, junit
from helpers.support import gate_args
from waiver.cli import main

GOOD_CASE = '<testcase classname="suite.Good" name="test_ok" time="0.1"/>'
SECRET = "TOP-SECRET-CONTENT-5d1f"


class Repo:
    """A repository root with fixtures, a lock, a property report and five replays."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "fixtures").mkdir()
        (root / "fixtures" / "a.json").write_text('{"a": 1}')
        self.write_lock()
        (root / "properties.xml").write_text(PASSING_PROPERTIES)
        # These cases are about hostile input, not about new or vanished tests.
        (root / "waiver.yml").write_text("registry: none\n")
        (root / "reports").mkdir()
        for replay in range(1, 6):
            self.replay(replay, junit(GOOD_CASE))
        # A file outside the repository that nothing may ever read into an output.
        self.secret = root.parent / "secret.txt"
        self.secret.write_text(SECRET)

    def write_lock(self, *extra_lines: str) -> None:
        digest = hashlib.sha256((self.root / "fixtures" / "a.json").read_bytes()).hexdigest()
        lines = [f"{digest}  fixtures/a.json", *extra_lines]
        (self.root / "fixture.lock").write_text("".join(line + "\n" for line in lines))

    def replay(self, number: int, text: str | bytes) -> Path:
        path = self.root / "reports" / f"run-{number}.xml"
        if isinstance(text, str):
            path.write_text(text, encoding="utf-8")
        else:
            path.write_bytes(text)
        return path

    def args(self, *extra: str) -> list[str]:
        config = str(self.root / "waiver.yml")
        return gate_args(self.root, "--config", config, *extra, known_tests=False, summary=True)

    def outputs(self) -> str:
        """Everything the gate wrote, for leak checks."""
        texts = []
        for name in ("waiver.json", "summary.md"):
            path = self.root / name
            if path.exists():
                texts.append(path.read_text())
        return "\n".join(texts)


Run = Callable[..., tuple[int, str, str]]


def make_runner(repo: Repo, capfd: pytest.CaptureFixture[str]) -> Run:
    """Runs the gate; returns (exit code, stdout, stderr) and checks the universal promises:
    no traceback, nothing of the secret file anywhere, no workflow command on any line."""

    def run(*extra: str, codes: tuple[int, ...] = (1, 2)) -> tuple[int, str, str]:
        code = main(repo.args(*extra))
        out, err = capfd.readouterr()
        assert code in codes, (code, out, err)
        assert "Traceback" not in out + err
        assert SECRET not in out + err + repo.outputs()
        for line in (out + err).splitlines():
            assert not line.startswith("::"), line
            assert "##[" not in line, line
        return code, out, err

    return run


# waiver in a process of its own, which reports its peak memory on its last line of stderr:
# the high-water mark of its own memory (VmHWM), which starts afresh at exec, where
# getrusage's ru_maxrss keeps the forking parent's (a pytest worker's) peak.
MEASURED = """
import sys
from waiver.cli import main
code = main(sys.argv[1:])
with open("/proc/self/status") as status:
    peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
print(f"peak-kib {peak}", file=sys.stderr)
raise SystemExit(code)
"""


def measured(cwd: Path, *argv: str) -> tuple[int, str, float]:
    """`waiver ARGV` run from `cwd` in a process of its own: its exit code, its stderr and
    its peak memory in MB. A run that does not end within a minute fails the test (the time
    itself is measured in bench/, not here)."""
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    *lines, last = done.stderr.splitlines()
    assert last.startswith("peak-kib "), done.stderr[-2000:]
    return done.returncode, "\n".join(lines), int(last.split()[1]) / 1024
