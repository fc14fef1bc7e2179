"""JUnit XML as the tests write it by hand: test cases, and documents of one suite."""

from __future__ import annotations

XML_DECLARATION = '<?xml version="1.0"?>'


def case(classname: str, name: str, body: str = "", time: str | None = None) -> str:
    """One <testcase>, empty (a pass) unless `body` holds its failure, error or skip."""
    timing = "" if time is None else f' time="{time}"'
    head = f'<testcase classname="{classname}" name="{name}"{timing}'
    return f"{head}>{body}</testcase>" if body else f"{head}/>"


def suite(*cases: str, name: str = "s") -> str:
    """`cases` in one <testsuite> named `name` inside <testsuites>, with no XML declaration."""
    return f'<testsuites><testsuite name="{name}">{"".join(cases)}</testsuite></testsuites>'


def junit(*cases: str, name: str = "s") -> str:
    """A whole report file: the XML declaration, then `suite(*cases, name=name)`."""
    return XML_DECLARATION + suite(*cases, name=name)


# A property report in which the one property holds.
PASSING_PROPERTIES = suite(case("props", "holds"), name="p")
