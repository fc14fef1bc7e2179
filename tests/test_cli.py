"""Every flag of `waiver gate` says what it is for in `--help`."""

from __future__ import annotations

import argparse

import pytest

from waiver.cli import build_parser, main


def _subcommand(name: str) -> argparse.ArgumentParser:
    parser = build_parser()
    subparsers = next(
        action for action in parser._actions if isinstance(action, argparse._SubParsersAction)
    )
    chosen: argparse.ArgumentParser = subparsers.choices[name]
    return chosen


def test_every_gate_flag_has_help() -> None:
    actions = _subcommand("gate")._actions
    missing = [action.option_strings for action in actions if not action.help]
    assert missing == []


def test_gate_help_shows_each_flag_with_its_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gate", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    for action in _subcommand("gate")._actions:
        assert action.help is not None
        assert " ".join(action.help.split()) in text, action.option_strings
