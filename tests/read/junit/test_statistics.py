"""Hypothesis's statistics in a property report: the properties that generated too few cases."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from helpers.support import run_pytest, write_tree
from waiver.read.junit.statistics import FewCases, properties_with_few_cases

LIMIT = 1 << 20


def generated(count: int, stopped: str) -> str:
    return (
        "  - during generate phase (0.01 seconds):\n"
        "    - Typical runtimes: < 1ms, of which < 1ms in data generation\n"
        f"    - {count} passing, 0 failing, and 0 invalid test cases\n\n"
        f"  - Stopped because {stopped}"
    )


STATISTICS = {
    "t.py::test_capped": generated(1, "settings.max_examples=1"),
    "t.py::test_nothing": "  - Stopped because nothing left to do",  # no generate phase
    "t.py::test_exhausted": generated(1, "nothing left to do"),  # `just(1)`: all there is
    "t.py::test_full": generated(100, "settings.max_examples=100"),
    "t.py::test_few_but_more": generated(3, "settings.max_examples=3"),
    "t.py::test_not_run": generated(0, "settings.max_examples=1"),
}


def report(tmp_path: Path, statistics: dict[str, str], extra: str = "") -> str:
    properties = "".join(
        f'<property name="hypothesis-statistics-{test_id}" '
        f'value="{base64.b64encode(text.encode()).decode()}"/>'
        for test_id, text in statistics.items()
    )
    path = tmp_path / "properties.xml"
    path.write_text(
        f'<testsuites><testsuite name="pytest"><properties>{properties}{extra}</properties>'
        '<testcase classname="t" name="test_full"/></testsuite></testsuites>'
    )
    return str(path)


def test_a_property_that_generated_no_case_or_one_by_its_settings_is_named(
    tmp_path: Path,
) -> None:
    ran = frozenset(STATISTICS) - {"t.py::test_not_run"}
    assert properties_with_few_cases(report(tmp_path, STATISTICS), ran, LIMIT) == [
        FewCases("t.py::test_capped", 1, "settings.max_examples=1"),
        FewCases("t.py::test_nothing", 0, "nothing left to do"),
    ]


def test_statistics_that_are_not_hypothesis_text_name_nothing(tmp_path: Path) -> None:
    extra = (
        '<property name="hypothesis-statistics-t.py::test_bad" value="not base64!"/>'
        '<property name="hypothesis-statistics-t.py::test_bytes" value="/w=="/>'
    )
    ran = frozenset({"t.py::test_bad", "t.py::test_bytes"})
    assert properties_with_few_cases(report(tmp_path, {}, extra), ran, LIMIT) == []
    broken = tmp_path / "broken.xml"
    broken.write_text("<testsuites><testsuite")
    assert properties_with_few_cases(str(broken), ran, LIMIT) == []
    assert properties_with_few_cases(str(tmp_path / "absent.xml"), ran, LIMIT) == []


@pytest.mark.slow  # two real pytest runs with Hypothesis
def test_a_real_hypothesis_run_under_a_one_example_profile_is_named(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "conftest.py": (
                "from hypothesis import settings\n"
                "settings.register_profile('q', max_examples=1, derandomize=True)\n"
            ),
            "test_p.py": (
                "from hypothesis import given, settings, strategies\n\n"
                "@given(strategies.integers())\ndef test_any(x):\n    assert x == x\n\n"
                "@settings(max_examples=20)\n"
                "@given(strategies.integers())\ndef test_twenty(x):\n    assert x == x\n"
            ),
        },
    )
    ran = frozenset({"test_p.py::test_any", "test_p.py::test_twenty"})
    assert run_pytest(tmp_path, "--junitxml=full.xml", "test_p.py") == 0
    assert properties_with_few_cases(str(tmp_path / "full.xml"), ran, LIMIT) == []
    args = ("--junitxml=one.xml", "--hypothesis-profile=q", "test_p.py")
    assert run_pytest(tmp_path, *args) == 0
    assert properties_with_few_cases(str(tmp_path / "one.xml"), ran, LIMIT) == [
        FewCases("test_p.py::test_any", 1, "settings.max_examples=1")
    ]
