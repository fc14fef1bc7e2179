"""A best guess at the tool that wrote a JUnit report, shown by `waiver inspect` only.

The guess looks at the head of the document: the root element, the first `<testsuite>`,
the properties and comments before the first `<testcase>`, and that testcase's
attributes. Each tool leaves a mark there (a suite named `pytest`, a `go.version`
property, the order Gradle writes its attributes in). The guess never changes how a
report is read or classified.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pyexpat import ExpatError

from waiver.read.junit.stream import RefusedReport, expat_input, hardened_parser
from waiver.read.untrusted.files import CHUNK, open_regular


@dataclass
class Head:
    root: dict[str, str] = field(default_factory=dict)
    suite: dict[str, str] = field(default_factory=dict)  # attributes in document order
    case: dict[str, str] = field(default_factory=dict)
    properties: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)

    @property
    def suite_keys(self) -> list[str]:
        """The first suite's attribute names, without schema and namespace attributes."""
        return [key for key in self.suite if ":" not in key and key not in ("xmlns", "version")]


class _Seen(Exception):
    """The first testcase has started: the head is complete."""


def read_head(start_of_file: bytes, source: str) -> Head:
    """What the start of a report says about its writer, up to the first testcase."""
    head = Head()
    first = True

    def start(tag: str, attrs: dict[str, str]) -> None:
        nonlocal first
        if tag == "testcase":
            head.case = attrs
            raise _Seen
        if first and tag == "testsuites":
            head.root = attrs
        elif tag == "testsuite" and not head.suite:
            head.suite = attrs
        elif tag == "property":
            head.properties.append(attrs.get("name", ""))
        first = False

    encoding, body = expat_input((start_of_file,), source)
    parser = hardened_parser(encoding)
    parser.StartElementHandler = start
    parser.CommentHandler = head.comments.append
    with contextlib.suppress(_Seen, ExpatError, RefusedReport):
        for chunk in body:
            parser.Parse(chunk, False)
    return head


def _ant(head: Head) -> bool:
    """Ant writes the suite's attributes in alphabetical order, hostname among them."""
    keys = head.suite_keys
    return "hostname" in keys and "timestamp" in keys and keys == sorted(keys)


def _phpunit(head: Head) -> bool:
    return (
        "class" in head.case
        or "assertions" in head.suite
        or ("assertions" in head.case and "file" in head.suite)
    )


GRADLE_ORDERS = (
    ["name", "tests", "skipped", "failures", "errors", "timestamp", "hostname", "time"],
    ["name", "tests", "failures", "errors", "timestamp", "hostname", "time"],
)
SUREFIRE_ORDERS = (
    ["name", "time", "tests", "errors", "skipped", "failures"],
    ["failures", "time", "errors", "skipped", "tests", "name"],
)
ANDROID_ORDER = ["name", "tests", "failures", "errors", "skipped", "time", "timestamp", "hostname"]
PLAYWRIGHT_ROOT = ["id", "name", "tests", "failures", "skipped", "errors", "time"]
XMLRUNNER_SUITE = re.compile(r".+-\d{14}")


def _surefire(head: Head) -> bool:
    return (
        "surefire" in head.suite.get("xsi:noNamespaceSchemaLocation", "")
        or any(name.startswith("surefire.") or name == "maven.home" for name in head.properties)
        or head.suite_keys in SUREFIRE_ORDERS
    )


def _go(head: Head) -> bool:
    return "go.version" in head.properties


# First match wins; the more specific marks come before the general ones.
RULES: tuple[tuple[str, Callable[[Head], bool]], ...] = (
    ("TestNG", lambda h: any("org.testng" in comment for comment in h.comments)),
    ("Maven Surefire", _surefire),
    ("Gradle", lambda h: h.suite_keys in GRADLE_ORDERS),
    ("Android instrumentation (Gradle connected tests)", lambda h: h.suite_keys == ANDROID_ORDER),
    ("Firebase Test Lab", lambda h: "flakes" in h.suite),
    ("go-junit-report", lambda h: _go(h) and "id" in h.suite),
    ("gotestsum", _go),
    ("jest-junit", lambda h: h.root.get("name") == "jest tests"),
    # mocha's own `xunit` reporter writes one suite, no `<testsuites>`, and the same name.
    ("mocha xunit", lambda h: not h.root and h.suite.get("name") == "Mocha Tests"),
    ("mocha-junit-reporter", lambda h: "Mocha Tests" in (h.root.get("name"), h.suite.get("name"))),
    ("cargo-nextest", lambda h: "uuid" in h.root or h.root.get("name") == "nextest-run"),
    ("pytest", lambda h: h.suite.get("name") == "pytest"),
    ("GoogleTest", lambda h: h.root.get("name") == "AllTests"),
    ("Playwright", lambda h: list(h.root) == PLAYWRIGHT_ROOT),
    ("minitest-reporters", lambda h: "filepath" in h.suite),
    ("PHPUnit", _phpunit),
    ("Bazel", lambda h: "duration" in h.case and h.case.get("status") == "run"),
    ("Catch2", lambda h: h.suite.get("hostname") == "tbd" and h.case.get("status") == "run"),
    ("Cucumber-JVM", lambda h: "cucumber" in h.suite.get("name", "")),
    ("nose", lambda h: h.suite.get("name") == "nosetests"),
    ("unittest-xml-reporting", lambda h: bool(XMLRUNNER_SUITE.fullmatch(h.suite.get("name", "")))),
    ("ExUnit", lambda h: h.suite.get("name", "").startswith("Elixir.")),
    (
        ".NET test assembly (NUnit, xUnit.net, MSTest)",
        lambda h: h.suite.get("name", "").endswith(".dll"),
    ),
    ("Apache Ant or an Ant-style writer (sbt)", _ant),
)


def guess_producer(path: str) -> str | None:
    """The name of the tool that most likely wrote the report at `path`, if recognisable."""
    with os.fdopen(open_regular(path, path), "rb", buffering=0) as stream:
        head = read_head(stream.read(CHUNK), path)
    for name, matches in RULES:
        if matches(head):
            return name
    return None
