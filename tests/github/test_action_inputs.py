"""The action's INPUT_* variables become `waiver gate` arguments."""

from __future__ import annotations

from waiver.cli import build_parser
from waiver.github.action_inputs import GATE_INPUTS, gate_argv, input_variable

FULL_ENV = {
    "INPUT_REPORTS": "reports",
    "INPUT_PROPERTIES": "properties.xml",
    "INPUT_FIXTURES": "fixtures",
    "INPUT_LOCK": "fixture.lock",
    "INPUT_KNOWN-TESTS": "known-tests.txt",
    "INPUT_FREEZES": "freezes.json",
    "INPUT_CONFIG": "waiver.yml",
    "INPUT_MIN-REPLAYS": "7",
    "INPUT_FREEZE-HOURS": "12",
    "INPUT_TRUSTED-REF": "0123abcd",
    "INPUT_REPLAYS": "5",
    "INPUT_SHARDS": "2",
    "INPUT_BASE-REPORTS": "base-reports",
    "INPUT_OUT": "out/waiver.json",
    "GITHUB_STEP_SUMMARY": "/runner/summary.md",
}


def test_every_input_becomes_its_flag_in_order() -> None:
    assert gate_argv(FULL_ENV) == [
        "gate",
        "--reports=reports",
        "--properties=properties.xml",
        "--fixtures=fixtures",
        "--lock=fixture.lock",
        "--known-tests=known-tests.txt",
        "--freezes=freezes.json",
        "--config=waiver.yml",
        "--min-replays=7",
        "--freeze-hours=12",
        "--trusted-ref=0123abcd",
        "--replays=5",
        "--shards=2",
        "--base-reports=base-reports",
        "--out=out/waiver.json",
        "--summary=/runner/summary.md",
    ]


def test_empty_and_absent_inputs_and_other_variables_are_left_out() -> None:
    env = {
        "INPUT_REPORTS": "reports",
        "INPUT_TRUSTED-REF": "",
        "INPUT_CONFIG": "",
        "GITHUB_STEP_SUMMARY": "",
        "INPUT_KNOWN_TESTS": "underscored.txt",
        "INPUT_ARTIFACT-NAME": "waiver",
        "HOME": "/root",
    }

    assert gate_argv(env) == ["gate", "--reports=reports"]


def test_a_value_that_looks_like_a_flag_stays_a_value() -> None:
    assert gate_argv({"INPUT_OUT": "--help"}) == ["gate", "--out=--help"]


def test_input_variable_keeps_dashes_as_the_runner_does() -> None:
    assert [input_variable(name) for name in GATE_INPUTS] == [
        "INPUT_REPORTS",
        "INPUT_PROPERTIES",
        "INPUT_FIXTURES",
        "INPUT_LOCK",
        "INPUT_KNOWN-TESTS",
        "INPUT_FREEZES",
        "INPUT_CONFIG",
        "INPUT_MIN-REPLAYS",
        "INPUT_FREEZE-HOURS",
        "INPUT_TRUSTED-REF",
        "INPUT_REPLAYS",
        "INPUT_SHARDS",
        "INPUT_BASE-REPORTS",
        "INPUT_RED-GREEN",
        "INPUT_CHANGE-TESTS",
        "INPUT_APPROVALS",
        "INPUT_PROVENANCE",
        "INPUT_HISTORY",
        "INPUT_OUT",
    ]


def test_the_gate_command_accepts_every_input() -> None:
    args = build_parser().parse_args(gate_argv(FULL_ENV))

    assert (
        args.reports,
        args.properties,
        args.fixtures,
        args.lock,
        args.known_tests,
        args.freezes,
        args.config,
        args.min_replays,
        args.freeze_hours,
        args.trusted_ref,
        args.replays,
        args.shards,
        args.base_reports,
        args.out,
        args.summary,
    ) == (
        "reports",
        "properties.xml",
        "fixtures",
        "fixture.lock",
        "known-tests.txt",
        "freezes.json",
        "waiver.yml",
        7,
        12,
        "0123abcd",
        5,
        2,
        "base-reports",
        "out/waiver.json",
        "/runner/summary.md",
    )
