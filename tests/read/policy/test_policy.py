"""The policy file: strict tests, fixture bindings, limits, flags over the file, and refusals.

Each test builds a small repository in tmp_path: fixture files, a lock written by
`waiver lock`, pytest-style JUnit files for the property suite and five replays, and a
`waiver.yml`; then it runs the real command.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from helpers.junit_support import case, junit
from helpers.support import REPO, git, rows, run_gate
from waiver.cli import main
from waiver.decide.policy import Policy, policy_key
from waiver.read.policy.settings import Flags, effective
from waiver.write.report.report import policy_json

AUTH = "tests/auth/test_login.py::test_token"
PARSE = "tests/parse/test_parse.py::test_round_trip"
RENDER = "tests/render/test_render.py::test_page"
FLIPS = (True, False, True, False, True)
PASSES = (True,) * 5
FIXTURES = {
    "fixtures/parse/a.json": '{"input": "a"}\n',
    "fixtures/parse/b.json": '{"input": "b"}\n',
    "fixtures/render/x.json": '{"page": "x"}\n',
}
PARSE_BINDING = """\
bindings:
  - tests: ["tests/parse/*"]
    fixtures: ["fixtures/parse/*"]
"""
RENDER_BINDING = """\
  - tests: ["tests/render/*"]
    fixtures: ["fixtures/render/*"]
"""
# The top-level keys of waiver.yml, as the declaration (`waiver.decide.policy.Policy`) has them.
KEYS = ", ".join(sorted({policy_key(f).section or f.name for f in fields(Policy)}))


def effective_json(values: dict[str, Any], sources: dict[str, str], config: str) -> dict[str, Any]:
    """What `policy_json` holds when the file and the flags set `values`, from `sources`:
    every other key at its declared default, so a new key needs no line in these tests."""
    document = policy_json(effective(None, Flags(), "."))
    limits = {**document["limits"], **values.pop("limits", {})}
    return {**document, **values, "limits": limits, "config": config,
            "sources": {**document["sources"], **sources}}  # fmt: skip


def junit_xml(outcomes: Mapping[str, bool]) -> str:
    """A report as pytest writes it: classname is the dotted module, a failure is a child."""
    cases = []
    for test_id, passed in outcomes.items():
        module, name = test_id.split("::")
        classname = module.removesuffix(".py").replace("/", ".")
        failure = "" if passed else '<failure message="assert 1 == 2">assert 1 == 2</failure>'
        cases.append(case(classname, name, failure, time="0.01"))
    return junit(*cases, name="pytest")


def build_repo(root: Path, outcomes: Mapping[str, Sequence[bool]]) -> Path:
    for test_id in outcomes:
        module = root / test_id.split("::")[0]
        module.parent.mkdir(parents=True, exist_ok=True)
        module.write_text("def test_placeholder():\n    pass\n")
    for path, text in FIXTURES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    lock_args = ["lock", "--root", str(root), "--fixtures", str(root / "fixtures")]
    assert main([*lock_args, "--out", str(root / "fixture.lock")]) == 0
    (root / "properties.xml").write_text(junit_xml({"tests.properties::test_invariant": True}))
    (root / "reports").mkdir()
    for replay in range(5):
        run = {test_id: results[replay] for test_id, results in outcomes.items()}
        (root / "reports" / f"run-{replay + 1}.xml").write_text(junit_xml(run))
    (root / "known-tests.txt").write_text("".join(f"{test_id}\n" for test_id in outcomes))
    return root


def write_policy(root: Path, text: str) -> Path:
    path = root / "waiver.yml"
    path.write_text(text)
    return path


def classes(report: Mapping[str, Any]) -> dict[str, str]:
    return {test_id: row["class"] for test_id, row in rows(report).items()}


def subset_digest(root: Path, prefix: str) -> str:
    """sha256 over the sorted lock lines of the files under `prefix`, from the lock text itself."""
    lines = (root / "fixture.lock").read_text().splitlines(keepends=True)
    chosen = sorted(line for line in lines if line[66:].startswith(prefix))
    assert chosen
    return hashlib.sha256("".join(chosen).encode()).hexdigest()


# --- strict patterns ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flipping", "code", "verdict"),
    [(AUTH, 1, "blocked"), (PARSE, 0, "review")],
)
def test_a_strict_flip_blocks_without_a_proposal_and_elsewhere_gets_one(
    tmp_path: Path, flipping: str, code: int, verdict: str
) -> None:
    root = build_repo(tmp_path, {AUTH: PASSES, PARSE: PASSES} | {flipping: FLIPS})
    config = write_policy(root, 'strict: ["tests/auth/*"]\n')
    got, report = run_gate(root, "--config", str(config))
    assert (got, report["verdict"]) == (code, verdict)
    row = rows(report)[flipping]
    assert row["class"] == "unstable_assertion"
    assert (row["replay_pass"], row["replay_total"]) == (3, 5)
    assert row["strict"] is (flipping == AUTH)
    if flipping == AUTH:
        assert row["freeze"] is None
    else:
        assert row["freeze"]["expires_at"] == "2026-12-02T12:00:00Z"


def test_the_summary_says_why_a_strict_row_blocks(tmp_path: Path) -> None:
    root = build_repo(tmp_path, {AUTH: FLIPS, PARSE: PASSES})
    config = write_policy(root, 'strict: ["tests/auth/*"]\n')
    assert run_gate(root, "--config", str(config), summary=True)[0] == 1
    summary = (root / "summary.md").read_text()
    assert (
        "**1 unstable test(s) match a `strict` pattern of the policy:** a strict test gets no "
        "freeze proposal, and an unstable one blocks admission.\n"
    ) in summary
    assert (
        f"| `unstable_assertion` | `{AUTH}` | 3/5 ✔✘✔✘✔ | none: matches a strict pattern (blocks) "
        "| `assert 1 == 2` |\n"
    ) in summary


def test_without_strict_patterns_the_summary_has_no_strict_note(tmp_path: Path) -> None:
    root = build_repo(tmp_path, {AUTH: FLIPS, PARSE: PASSES})
    assert run_gate(root, summary=True)[0] == 0
    assert "strict" not in (root / "summary.md").read_text()


# --- fixture bindings --------------------------------------------------------------------


def _change(root: Path, how: str, path: str) -> None:
    target = root / path
    if how == "edit":
        target.write_text(target.read_text() + " ")
    elif how == "add":
        target.write_text('{"new": true}\n')
    else:
        target.unlink()


DRIFTS = [
    ("edit", "fixtures/render/x.json"),
    ("add", "fixtures/render/new.json"),
    ("delete", "fixtures/render/x.json"),
]


@pytest.mark.parametrize(("how", "path"), DRIFTS)
def test_render_drift_leaves_tests_bound_to_parse_alone(
    tmp_path: Path, how: str, path: str
) -> None:
    root = build_repo(tmp_path, {PARSE: FLIPS, RENDER: PASSES, AUTH: PASSES})
    config = write_policy(root, PARSE_BINDING + RENDER_BINDING)
    parse_digest = subset_digest(root, "fixtures/parse/")
    _change(root, how, path)
    code, report = run_gate(root, "--config", str(config))
    assert code == 1
    assert classes(report) == {
        PARSE: "unstable_assertion",
        RENDER: "fixture_drift",
        AUTH: "fixture_drift",
    }
    parse_row = rows(report)[PARSE]
    assert parse_row["fixture_hash"] == parse_digest
    assert parse_row["freeze"]["fixture_hash"] == parse_digest
    assert report["fixtures"]["bindings"][0] == {
        "tests": ["tests/parse/*"],
        "fixtures": ["fixtures/parse/*"],
        "files": 2,
        "lock_digest": parse_digest,
        "tree_digest": parse_digest,
    }


@pytest.mark.parametrize(
    ("how", "path"), [("edit", "fixtures/parse/a.json"), ("add", "fixtures/parse/c.json")]
)
def test_parse_drift_drifts_the_parse_tests_and_the_whole_set(
    tmp_path: Path, how: str, path: str
) -> None:
    root = build_repo(tmp_path, {PARSE: FLIPS, RENDER: PASSES, AUTH: PASSES})
    config = write_policy(root, PARSE_BINDING + RENDER_BINDING)
    render_digest = subset_digest(root, "fixtures/render/")
    _change(root, how, path)
    code, report = run_gate(root, "--config", str(config))
    assert code == 1
    assert classes(report) == {
        PARSE: "fixture_drift",
        RENDER: "stable_pass",
        AUTH: "fixture_drift",
    }
    assert rows(report)[PARSE]["freeze"] is None
    assert rows(report)[RENDER]["fixture_hash"] == render_digest


def test_a_test_in_two_bindings_drifts_with_either_subset(tmp_path: Path) -> None:
    root = build_repo(tmp_path, {PARSE: FLIPS, AUTH: PASSES})
    policy = PARSE_BINDING + '  - tests: ["tests/parse/*"]\n    fixtures: ["fixtures/render/*"]\n'
    config = write_policy(root, policy)
    assert classes(run_gate(root, "--config", str(config))[1])[PARSE] == "unstable_assertion"
    _change(root, "edit", "fixtures/render/x.json")
    assert classes(run_gate(root, "--config", str(config))[1])[PARSE] == "fixture_drift"


@pytest.mark.parametrize(("how", "path"), DRIFTS)
def test_drift_in_a_file_no_binding_names_drifts_every_row(
    tmp_path: Path, how: str, path: str
) -> None:
    # Only the parse fixtures are bound: the render fixture is part of the whole set, and
    # so of every test's fixtures, bound or not.
    root = build_repo(tmp_path, {PARSE: FLIPS, RENDER: PASSES})
    config = write_policy(root, PARSE_BINDING)
    _change(root, how, path)
    code, report = run_gate(root, "--config", str(config))
    assert code == 1
    assert classes(report) == {PARSE: "fixture_drift", RENDER: "fixture_drift"}
    assert rows(report)[PARSE]["freeze"] is None
    subset = report["fixtures"]["bindings"][0]
    assert subset["lock_digest"] != subset["tree_digest"]


def test_unbound_tests_carry_the_digest_of_the_whole_set(tmp_path: Path) -> None:
    root = build_repo(tmp_path, {PARSE: FLIPS, AUTH: FLIPS})
    config = write_policy(root, PARSE_BINDING + RENDER_BINDING)
    code, report = run_gate(root, "--config", str(config))
    assert code == 0
    found = rows(report)
    assert found[AUTH]["freeze"]["fixture_hash"] == subset_digest(root, "fixtures/")
    assert found[AUTH]["fixture_hash"] == report["fixtures"]["lock_digest"]
    assert found[PARSE]["freeze"]["fixture_hash"] == subset_digest(root, "fixtures/parse/")


def test_a_binding_pattern_that_matches_no_locked_file_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = build_repo(tmp_path, {PARSE: FLIPS})
    config = write_policy(
        root, 'bindings:\n  - tests: ["tests/parse/*"]\n    fixtures: ["parse/*"]\n'
    )
    code, report = run_gate(root, "--config", str(config))
    problem = (
        "bindings[0].fixtures[0]: 'parse/*' matches no file in the lock "
        "(patterns match lock paths, relative to the repository root)"
    )
    assert code == 2
    assert report["error"] == {"source": str(config), "problem": problem}
    assert capsys.readouterr().err == f"waiver: error: {config}: {problem}\n"


def test_the_fixture_include_patterns_come_from_the_file_unless_a_flag_is_given(
    tmp_path: Path,
) -> None:
    root = build_repo(tmp_path, {PARSE: PASSES})
    (root / "fixtures" / "README.txt").write_text("not a fixture\n")
    assert classes(run_gate(root)[1]) == {PARSE: "fixture_drift"}
    config = write_policy(root, 'fixtures: ["*.json"]\n')
    code, report = run_gate(root, "--config", str(config))
    assert (code, classes(report)) == (0, {PARSE: "stable_pass"})
    assert report["policy"]["sources"]["fixtures"] == "file"
    code, report = run_gate(root, "--config", str(config), "--pattern", "*")
    assert (code, classes(report)) == (1, {PARSE: "fixture_drift"})
    assert report["fixtures"]["drift"] == [
        {"path": "fixtures/README.txt", "kind": "not_in_lock", "part": "fixtures"}
    ]
    assert report["policy"]["sources"]["fixtures"] == "flag"


def test_no_fixture_globs_lock_the_harness_alone_and_no_file_is_a_fixture(tmp_path: Path) -> None:
    root = build_repo(tmp_path, {PARSE: PASSES})
    (root / "conftest.py").write_text("")
    config = write_policy(root, "fixtures: []\n")
    assert main(["lock", "--root", str(root), "--fixtures", str(root), "--config", str(config),
                 "--out", str(root / "fixture.lock")]) == 0  # fmt: skip
    assert [line[66:] for line in (root / "fixture.lock").read_text().splitlines()] == [
        "conftest.py"
    ]
    (root / "fixtures" / "parse.json").write_text("edited\n")
    (root / "notes.txt").write_text("new\n")
    code, report = run_gate(root, "--config", str(config), "--fixtures", str(root))
    assert (code, classes(report)) == (0, {PARSE: "stable_pass"})
    (root / "conftest.py").write_text("import pytest\n")
    code, report = run_gate(root, "--config", str(config), "--fixtures", str(root))
    assert (code, classes(report)) == (1, {PARSE: "fixture_drift"})
    assert report["fixtures"]["drift"] == [
        {"path": "conftest.py", "kind": "changed", "part": "harness"}
    ]


# --- freezes, registry, flags over the file ---------------------------------------------


def test_a_stored_freeze_longer_than_max_freeze_hours_is_void(tmp_path: Path) -> None:
    root = build_repo(tmp_path, {PARSE: FLIPS})
    whole = subset_digest(root, "fixtures/")
    record = {
        "test_id": PARSE,
        "class": "unstable_assertion",
        "fixture_hash": whole,
        "replay_pass": 3,
        "replay_total": 5,
        "counts_as_pass": False,
        "scope": "single_test_id",
        "issued_at": "2026-12-01T11:00:00+00:00",
    }
    too_long = record | {"expires_at": "2026-12-03T12:00:00+00:00"}  # 49 h
    fitting = record | {"expires_at": "2026-12-03T11:00:00+00:00"}  # 48 h
    (root / "freezes.json").write_text(json.dumps([too_long, fitting]))
    config = write_policy(root, "max_freeze_hours: 48\nfreezes: freezes.json\n")
    code, report = run_gate(root, "--config", str(config))
    assert code == 0
    assert report["freezes"] == {
        "active": [{"index": 1, "record": fitting}],
        "void": [
            {
                "index": 0,
                "record": too_long,
                "reason": "lifetime exceeds the policy maximum of 48 h",
            }
        ],
    }
    assert rows(report)[PARSE]["active_freeze"] == {"index": 1, "record": fitting}


def test_flags_override_the_file_and_the_report_says_where_each_value_came_from(
    tmp_path: Path,
) -> None:
    root = build_repo(tmp_path, {PARSE: FLIPS, AUTH: PASSES})
    (root / "known-tests.txt").write_text(f"{AUTH}\n{PARSE}\n{RENDER}\n")
    config = write_policy(
        root,
        "min_replays: 3\nfreeze_hours: 12\nstrict: []\nregistry: known-tests.txt\n"
        "limits:\n  max_files_per_replay: 50\n",
    )
    code, report = run_gate(root, "--config", str(config), "--freeze-hours", "6", known_tests=False)
    assert code == 1  # RENDER is in the registry and never ran
    assert classes(report) == {
        AUTH: "stable_pass",
        PARSE: "unstable_assertion",
        RENDER: "unknown_test",
    }
    assert rows(report)[PARSE]["freeze"]["expires_at"] == "2026-12-01T18:00:00Z"
    assert report["min_replays"] == 3
    assert report["policy"] == effective_json(
        {"min_replays": 3, "freeze_hours": 6, "strict": [],
         "registry": str(root / "known-tests.txt"), "limits": {"max_files_per_replay": 50}},
        {"min_replays": "file", "freeze_hours": "flag", "strict": "file", "registry": "file",
         "limits.max_files_per_replay": "file"},
        config=str(config),
    )  # fmt: skip


def test_a_flag_above_the_files_maximum_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = build_repo(tmp_path, {PARSE: FLIPS})
    config = write_policy(root, "max_freeze_hours: 48\n")
    code, report = run_gate(root, "--config", str(config), "--freeze-hours", "72")
    assert (code, report["blocked"]) == (2, True)
    assert capsys.readouterr().err == (
        "waiver: error: freeze_hours (72) exceeds max_freeze_hours (48)\n"
    )


def test_a_change_cannot_loosen_the_policy_of_its_own_gate_run(tmp_path: Path) -> None:
    root = build_repo(tmp_path, {AUTH: FLIPS, PARSE: PASSES})
    config = write_policy(root, 'strict: ["tests/auth/*"]\n')
    git(root, "init", "-q")
    # The reports are this run's, never the repository's: the gate refuses committed ones.
    git(root, "add", "-A", "--", ".", ":!reports", ":!properties.xml")
    git(root, "commit", "-q", "-m", "base")
    base = git(root, "rev-parse", "HEAD")
    write_policy(root, "strict: []\nfreeze_hours: 100\nmax_freeze_hours: 200\n")
    git(root, "commit", "-q", "-am", "the change loosens its own policy")

    code, report = run_gate(root, "--config", str(config), "--trusted-ref", base)
    assert (code, report["trusted_revision"]) == (1, base)
    row = rows(report)[AUTH]
    assert (row["class"], row["strict"], row["freeze"]) == ("unstable_assertion", True, None)
    policy = report["policy"]
    assert (policy["strict"], policy["freeze_hours"]) == (["tests/auth/*"], 24)
    assert report["fixtures"]["protected_changes"] == [
        {"file": "config", "path": str(config), "change": "modified"}
    ]
    # Read from the working tree instead, the change's own edit would have let it through.
    code, report = run_gate(root, "--config", str(config))
    assert (code, rows(report)[AUTH]["freeze"]["expires_at"]) == (0, "2026-12-05T16:00:00Z")


# --- `waiver policy --check` and invalid files ------------------------------------------


def test_policy_check_prints_the_effective_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_policy(
        tmp_path,
        "# reviewed by the release team\nmin_replays: 7\nstrict:\n  - tests/auth/*\n"
        + PARSE_BINDING
        + "freezes: ci/freezes.json\nintroduced_instability: block\n",
    )
    assert main(["policy", "--check", str(config)]) == 0
    assert json.loads(capsys.readouterr().out) == effective_json(
        {"min_replays": 7, "strict": ["tests/auth/*"], "introduced_instability": "block",
         "bindings": [{"tests": ["tests/parse/*"], "fixtures": ["fixtures/parse/*"]}],
         "freezes": "ci/freezes.json"},
        dict.fromkeys(["min_replays", "strict", "introduced_instability", "bindings", "freezes"],
                      "file"),
        config=str(config),
    )  # fmt: skip


def test_the_documented_example_is_valid_and_sets_every_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    section = (REPO / "docs" / "policy.md").read_text()
    example = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    config = write_policy(tmp_path, example)
    assert main(["policy", "--check", str(config)]) == 0
    sources = json.loads(capsys.readouterr().out)["sources"]
    assert sources == {policy_key(f).name(f.name): "file" for f in fields(Policy)}


INVALID = [
    (
        "min_replays: 5\nwaive_closed: true\n",
        f"waive_closed: unknown key (expected one of: {KEYS})",
    ),
    (
        "limits:\n  max_report_bytes: 10\n  max_rows: 5\n",
        "limits.max_rows: unknown key (expected one of: max_files_per_replay, max_report_bytes)",
    ),
    ("min_replays: 0\n", "min_replays: expected an integer >= 1, got 0"),
    ('freeze_hours: "24"\n', "freeze_hours: expected an integer, got the string '24'"),
    ("freeze_hours: 24.0\n", "freeze_hours: expected an integer, got 24.0"),
    ("min_replays: true\n", "min_replays: expected an integer, got true"),
    *(
        (
            f"min_replays: {plain}\n",
            f"min_replays: YAML 1.1 reads the plain value {plain!r} (line 1) as {tag}, other "
            "YAML readers as !!str; quote it, or write a plain decimal number or true/false",
        )
        for plain, tag in [
            ("yes", "!!bool"),
            ("on", "!!bool"),
            ("1:00", "!!int"),
            ("017", "!!int"),
            ("0x1f", "!!int"),
            ("1_000", "!!int"),
            (".inf", "!!float"),
            ("2026-12-01", "!!timestamp"),
        ]
    ),
    (
        "strict:\n  - off\n",
        "strict[0]: YAML 1.1 reads the plain value 'off' (line 2) as !!bool, other YAML "
        "readers as !!str; quote it, or write a plain decimal number or true/false",
    ),
    ("min_replays:\n", "min_replays: expected an integer, got an empty value"),
    ('strict: "tests/*"\n', "strict: expected a list, got the string 'tests/*'"),
    ("harness: []\n", "harness: expected a list of at least 1 item(s), got an empty list"),
    (
        "introduced_instability: warn\n",
        "introduced_instability: expected one of: review, block, got the string 'warn'",
    ),
    ('bindings:\n  - tests: ["tests/parse/*"]\n', "bindings[0]: missing key fixtures"),
    (
        "bindings:\n  - tests: [1]\n    fixtures: [x]\n",
        "bindings[0].tests[0]: expected a string, got 1",
    ),
    ("freeze_hours: 200\n", "freeze_hours: expected at most max_freeze_hours (168), got 200"),
    (
        "max_freeze_hours: 12\n",
        "max_freeze_hours: expected at least freeze_hours (24, the default), got 12",
    ),
    (
        "min_replays: !!python/object/apply:os.system ['echo owned']\n",
        "min_replays: the YAML tag !!python/object/apply:os.system (line 1) is not allowed; "
        "a policy file holds plain values only",
    ),
    (
        "strict: []\nlimits: !!python/object:waiver.read.junit.replay_set.Limits {max_report_bytes: 1}\n",
        "limits: the YAML tag !!python/object:waiver.read.junit.replay_set.Limits (line 2) is not allowed; "
        "a policy file holds plain values only",
    ),
    ("min_replays: 5\nmin_replays: 1\n", "min_replays: the key is given twice"),
    (
        "strict: &all [x]\nfixtures: *all\n",
        "fixtures: YAML aliases are not allowed in a policy file",
    ),
    ("- min_replays\n", "(top level): expected a mapping, got a list"),
    ("", "the policy file is empty; write {} to take every default"),
    (
        "min_replays: [5\n",
        "not valid YAML: while parsing a flow sequence, expected ',' or ']', "
        "but got '<stream end>' (line 2, column 1)",
    ),
    (
        "strict: []\n---\nstrict: [x]\n",
        "not valid YAML: expected a single document in the stream, "
        "but found another document (line 2, column 1)",
    ),
    (
        'strict: ["\x01"]\n',
        'not valid YAML: unacceptable character #x0001: special characters are not allowed<U+000A>  in "<unicode string>", position 10',
    ),
    ("? [a]\n: 1\n", "(top level): a key (line 1) is not a plain string"),
    ("strict: []\n1: x\n", "(top level): a key (line 2) is not a plain string: '1'"),
    (
        f"min_replays: {'9' * 5000}\n",
        "min_replays: expected an integer, got a number 5000 characters long",
    ),
    ("max_freeze_hours: 100000\n", "max_freeze_hours: expected an integer <= 87600, got 100000"),
    ("registry: /etc/known-tests.txt\n", "registry: path '/etc/known-tests.txt' is absolute"),
    (
        "freezes: ../base/freezes.json\n",
        "freezes: path '../base/freezes.json' has an empty, '.' or '..' component",
    ),
]


@pytest.mark.parametrize(("text", "problem"), INVALID)
def test_policy_check_refuses_an_invalid_file_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, problem: str
) -> None:
    config = write_policy(tmp_path, text)
    assert main(["policy", "--check", str(config)]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", f"waiver: error: {config}: {problem}\n")


@pytest.mark.parametrize(("text", "problem"), INVALID[:4])
def test_the_gate_refuses_an_invalid_file_with_a_blocked_report(
    tmp_path: Path, text: str, problem: str
) -> None:
    root = build_repo(tmp_path, {PARSE: PASSES})
    (root / "waiver.json").write_text('{"blocked": false}')  # a stale green report
    config = write_policy(root, text)
    code, report = run_gate(root, "--config", str(config))
    assert (code, report["blocked"], report["rows"]) == (2, True, [])
    assert report["error"] == {"source": str(config), "problem": problem}
    assert report["policy"]["config"] is None


def test_a_50_mb_policy_file_is_refused_before_parsing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "waiver.yml"
    with config.open("wb") as stream:
        stream.write(b"min_replays: 5\n")
        stream.truncate(50 * 1024 * 1024)  # sparse: the size is real, the disk stays free
    assert main(["policy", "--check", str(config)]) == 2
    assert capsys.readouterr().err == (
        f"waiver: error: {config}: larger than the cap of 1048576 bytes\n"
    )
    root = build_repo(tmp_path / "repo", {PARSE: PASSES})
    code, report = run_gate(root, "--config", str(config))
    assert (code, report["error"]) == (
        2,
        {"source": str(config), "problem": "larger than the cap of 1048576 bytes"},
    )


def test_a_missing_policy_file_is_an_input_error(tmp_path: Path) -> None:
    root = build_repo(tmp_path, {PARSE: PASSES})
    code, report = run_gate(root, "--config", str(root / "absent.yml"))
    assert (code, report["error"]) == (
        2,
        {"source": str(root / "absent.yml"), "problem": "file not found"},
    )
