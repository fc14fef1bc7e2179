"""A streaming, hardened JUnit reader built on expat.

It never builds a tree: each `<testcase>` is reported once its end tag is read, and
text (tracebacks, captured output) is never even copied into Python. Documents with a
DOCTYPE, entity declarations or external entities are refused before anything in them
could be expanded or fetched.

Which child elements mean what comes from junitparser's xunit2 model, so the reader and
the library agree on the vocabulary: failure/error and the four retry elements fail an
attempt, skipped skips it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pyexpat import ExpatError, ParserCreate
from xml.parsers import expat

import junitparser
from junitparser import xunit2

from waiver.errors import InputError

PASS, FAIL, SKIP = 1, 2, 4

RETRY_TAGS = frozenset(
    cls._tag
    for cls in (xunit2.FlakyFailure, xunit2.FlakyError, xunit2.RerunFailure, xunit2.RerunError)
)
FAIL_TAGS = frozenset({junitparser.Failure._tag, junitparser.Error._tag}) | RETRY_TAGS
SKIP_TAG = junitparser.Skipped._tag
# Attributes some producers use instead of a <skipped> child (GoogleTest, NUnit-style).
SKIP_STATUS = frozenset({"notrun", "disabled", "skipped", "skip"})
SKIP_RESULT = frozenset({"skipped", "suppressed"})
ROOTS = frozenset({"testsuites", "testsuite"})
MAX_DEPTH = 256

# (suite name, classname, name, PASS|FAIL|SKIP, retry elements seen) for each testcase
CaseSink = Callable[[str, str, str, int, int], None]


def _refuse(what: str) -> Callable[..., None]:
    def handler(*_args: object) -> None:
        raise _Refused(what)

    return handler


class _Refused(Exception):
    pass


def _refuse_external(*_args: object) -> int:
    raise _Refused("external entities are not allowed in a report")


def read_junit(chunks: Iterable[bytes], source: str, sink: CaseSink) -> int:
    """Stream one JUnit document into `sink`; returns the number of testcases read."""
    parser = ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = _refuse("a DOCTYPE is not allowed in a report")
    parser.EntityDeclHandler = _refuse("entity declarations are not allowed in a report")
    parser.ExternalEntityRefHandler = _refuse_external

    depth = 0
    suites: list[str] = []
    case_depth = 0  # depth of the open <testcase>, 0 when none is open
    classname = name = ""
    outcome = retries = count = 0

    def start(tag: str, attrs: dict[str, str]) -> None:
        nonlocal depth, case_depth, classname, name, outcome, retries
        depth += 1
        if case_depth:
            if depth == case_depth + 1:
                if tag in FAIL_TAGS:
                    outcome = FAIL
                    if tag in RETRY_TAGS:
                        retries += 1
                elif tag == SKIP_TAG and outcome != FAIL:
                    outcome = SKIP
                elif tag == "testcase":
                    raise _Refused("a <testcase> inside a <testcase>")
            return
        if depth > MAX_DEPTH:
            raise _Refused(f"elements nested deeper than {MAX_DEPTH}")
        if depth == 1 and tag not in ROOTS:
            raise _Refused(f"not a JUnit report: the root element is <{tag}>")
        if tag == "testcase":
            case_depth = depth
            classname = attrs.get("classname", "")
            name = attrs.get("name", "")
            retries = 0
            skipped = attrs.get("status") in SKIP_STATUS or attrs.get("result") in SKIP_RESULT
            outcome = SKIP if skipped else PASS
        elif tag == "testsuite":
            suites.append(attrs.get("name", ""))

    def end(tag: str) -> None:
        nonlocal depth, case_depth, count
        if depth == case_depth:
            case_depth = 0
            count += 1
            sink(suites[-1] if suites else "", classname, name, outcome, retries)
        elif not case_depth and tag == "testsuite":
            suites.pop()
        depth -= 1

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        for chunk in chunks:
            parser.Parse(chunk, False)
        parser.Parse(b"", True)
    except ExpatError as error:
        message = expat.errors.messages[error.code] if error.code else str(error)
        raise InputError(
            source, f"not well-formed XML: {message} (line {error.lineno}, column {error.offset})"
        ) from None
    except _Refused as refusal:
        raise InputError(source, str(refusal)) from None
    except RecursionError:
        raise InputError(source, "nesting too deep to read") from None
    return count
