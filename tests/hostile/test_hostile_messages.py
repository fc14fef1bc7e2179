"""Messages on stdout and stderr: no untrusted text can issue a workflow command.

The runner reads `::name::` at the start of a line, after leading white space, and
`##[name]` anywhere in a line, on stdout and stderr alike.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.hostile_support import GOOD_CASE, Repo, Run
from helpers.junit_support import junit
from waiver.cli import main
from waiver.write.words.escape import log_line, runner_inert_json

LEGACY = "##[set-output name=blocked;]false"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (LEGACY, "##<U+005B>set-output name=blocked;]false"),
        ("x ###[add-mask]y", "x ###<U+005B>add-mask]y"),
        ("::error::x", "<U+003A>:error::x"),
        ("  ::add-mask::x", "  <U+003A>:add-mask::x"),
        ("\u00a0::warning::x", "\u00a0<U+003A>:warning::x"),
        ("a\n::error::b", "a<U+000A>::error::b"),
        ("waiver: fine", "waiver: fine"),
    ],
)
def test_a_log_line_carries_no_workflow_command(text: str, shown: str) -> None:
    assert log_line(text) == shown


def test_runner_inert_json_is_the_same_json() -> None:
    document = {"strict": [LEGACY, "a##[b", "##[", "\\##["]}
    text = runner_inert_json(json.dumps(document))
    assert "##[" not in text
    assert json.loads(text) == document


def test_a_file_name_in_the_reports_folder_cannot_issue_a_command(
    repo: Repo, checked_gate: Run
) -> None:
    (repo.root / "reports" / LEGACY).write_text(junit(GOOD_CASE))
    code, _, err = checked_gate("--replays", "5")  # the runner checks every line for `##[`
    assert code == 2
    source = repo.root / "reports" / "##<U+005B>set-output name=blocked;]false"
    assert err == (
        f"waiver: error: {source}: not a replay (run-<n>.xml or run-<n>/): "
        "unexpected in the reports folder\n"
    )


def test_a_fixture_name_in_a_lock_line_cannot_issue_a_command(
    repo: Repo, checked_gate: Run
) -> None:
    repo.write_lock(f"{'0' * 64}  fixtures/../{LEGACY}")
    code, _, err = checked_gate()
    assert code == 2
    assert "##<U+005B>set-output" in err


def test_the_gates_own_lines_cannot_issue_a_command(
    repo: Repo, capfd: pytest.CaptureFixture[str]
) -> None:
    out = repo.root / LEGACY
    args = repo.args()
    args[args.index("--out") + 1] = str(out)
    assert main(args) == 0
    assert out.exists()
    shown = repo.root / "##<U+005B>set-output name=blocked;]false"
    assert capfd.readouterr().out.split("\n")[0] == f"waiver: clean; report written to {shown}"


def test_inspect_and_policy_check_print_no_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / f"{LEGACY}.xml"
    report.write_text(junit(GOOD_CASE))
    policy = tmp_path / "waiver.yml"
    policy.write_text(f'strict:\n  - "{LEGACY}"\n')
    assert main(["inspect", str(report)]) == 0
    assert main(["policy", "--check", str(policy)]) == 0
    out = capsys.readouterr().out
    assert "##[" not in out
    assert "##<U+005B>set-output" in out
    policy_json = out[out.index("{") :]
    assert json.loads(policy_json)["strict"] == [LEGACY]
