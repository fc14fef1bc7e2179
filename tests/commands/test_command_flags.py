"""A command's options filled from its flags, and the flags several commands take alike."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import pytest

from waiver.cli import main
from waiver.commands.flags import command_of, options_of
from waiver.commands.replays.replay import ReplayOptions


@dataclass(frozen=True)
class Options:
    out: str
    patterns: tuple[str, ...]
    tests: tuple[str, ...] = ()
    timeout: float | None = None
    kept: str = "default"


def test_each_field_comes_from_the_flag_of_its_name() -> None:
    args = argparse.Namespace(out="waiver.json", tests=["a", "b"], timeout=3.0, unrelated=1)
    options = options_of(Options, args, patterns=("*.json",))
    # A repeatable flag's list becomes a tuple, a field no flag fills keeps its default, and
    # a flag no field names is left alone.
    assert options == Options("waiver.json", ("*.json",), ("a", "b"), 3.0, "default")


def test_a_given_value_wins_over_the_flag_of_the_same_name() -> None:
    args = argparse.Namespace(out="flag", patterns=["flag"], tests="ids.txt")
    options = options_of(Options, args, out="given", tests=("x",))
    assert options == Options("given", ("flag",), ("x",))


def test_a_field_neither_a_flag_nor_given_fills_is_an_error() -> None:
    with pytest.raises(TypeError, match="patterns"):
        options_of(Options, argparse.Namespace(out="waiver.json"))


def test_the_separator_before_the_command_is_dropped() -> None:
    assert command_of(["--", "pytest", "-q"]) == ["pytest", "-q"]
    assert command_of(["pytest", "--", "-q"]) == ["pytest", "--", "-q"]
    assert command_of([]) == []


def test_replay_fills_its_options_from_its_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[ReplayOptions] = []
    monkeypatch.setattr(
        "waiver.commands.replays.replay.run_replays", lambda options: seen.append(options) or 0
    )
    argv = ["replay", "-n", "3", "--out", "reports", "--timeout", "9", "--", "pytest", "-q"]
    assert main(argv) == 0
    assert seen == [ReplayOptions(count=3, out="reports", command=["pytest", "-q"], timeout=9.0)]
