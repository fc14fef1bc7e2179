"""The guard on a model's commentary about one `unstable_assertion` row. Pure: no I/O.

A reply is kept only when it cannot be read as a decision: it names no class other than
the row's own, recommends no freeze, skip or waiver while naming another test id, and
does not claim that the test passes. The guard errs toward dropping: a dropped reply
loses only commentary, while a kept one is shown beside the gate's result.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from waiver.model import CLOSED_CLASSES, TestClass

MAX_REPLY_CHARS = 1500


@dataclass(frozen=True)
class Accepted:
    text: str


@dataclass(frozen=True)
class Dropped:
    reason: str


def _class_pattern(test_class: TestClass) -> re.Pattern[str]:
    """A class name as a model may spell it: `fixture_drift`, `fixture drift`, `Fixture-Drift`."""
    words = test_class.value.split("_")
    return re.compile(r"\b" + r"[\s_-]*".join(words), re.IGNORECASE)


CLASS_PATTERNS = {test_class: _class_pattern(test_class) for test_class in TestClass}
# "stable failure" is how prose says stable_assertion_fail.
STABLE_FAILURE = re.compile(r"\bstable[\s_-]*fail", re.IGNORECASE)
RECOMMENDATION = re.compile(
    r"\b(?:freez|froze|skip|waiv|xfail|quarantin|disabl|mut(?:e|ed|ing)\b|ignor)", re.IGNORECASE
)
# Words a test name is made of in pytest, unittest and JUnit ids: test_x, TestX, XTest.
TEST_NAME = re.compile(r"(?:tests?_\w+|Test[A-Z0-9_]\w*|\w*[a-z0-9]Tests?)(?:\[.*\])?")
TOKEN = re.compile(r"[^\s`'\"(){}<>,;|*]+")
PASS_CLAIM = re.compile(
    r"""
      \bcounts?\s+as\s+(?:a\s+)?pass
    | \b(?:treat|consider|mark|call|regard)\w*\s+(?:it|this(?:\s+test)?|the\s+test)\s+as\s+
        (?:a\s+)?(?:pass|green|stable)
    | \b(?:it|this\s+test|the\s+test)\s+(?:actually\s+|really\s+|effectively\s+|now\s+)?
        (?:passes|is\s+passing|is\s+green)\b(?!\s+(?:in|on|only|sometimes|intermittently|\d))
    | \b(?:always|reliably|consistently)\s+pass
    | \bpasses\s+(?:always|reliably|consistently)
    | \bsafe\s+to\s+(?:merge|ignore|admit|waive|skip)
    | \bnot\s+a\s+real\s+failure
    """,
    re.IGNORECASE | re.VERBOSE,
)


def _looks_like_test_id(token: str) -> bool:
    if "::" in token:
        return True
    return any(TEST_NAME.fullmatch(part) for part in re.split(r"[./\\#]", token))


def _other_test_ids(reply: str, own_id: str) -> list[str]:
    """Tokens of `reply` that look like a test id and are not part of the row's own id."""
    tokens = (token.rstrip(".:!?") for token in TOKEN.findall(reply))
    return [token for token in tokens if _looks_like_test_id(token) and token not in own_id]


def _named_class(reply: str, own_class: TestClass) -> str | None:
    for test_class, pattern in CLASS_PATTERNS.items():
        if test_class is not own_class and pattern.search(reply):
            return test_class.value
    if STABLE_FAILURE.search(reply):
        return TestClass.STABLE_ASSERTION_FAIL.value
    return None


def guard(row: Mapping[str, Any], reply: str) -> Accepted | Dropped:
    """The reply's text if it may be shown beside `row`, else why it was dropped."""
    text = reply.strip()
    if not text:
        return Dropped("the reply is empty")
    if len(text) > MAX_REPLY_CHARS:
        return Dropped(f"the reply is longer than {MAX_REPLY_CHARS} characters ({len(text)})")
    own_class = TestClass(row["class"])
    named = _named_class(text, own_class)
    if named is not None:
        if TestClass(named) in CLOSED_CLASSES:
            return Dropped(
                f"the reply names the closed class {named}; a closed class is never flaky "
                "or safe, and only the gate assigns classes"
            )
        return Dropped(f"the reply names the class {named}; only the gate assigns classes")
    others = _other_test_ids(text, row["test_id"])
    if others and RECOMMENDATION.search(text):
        return Dropped(
            f"the reply recommends a freeze, skip or waiver and names another test id: "
            f"{others[0][:200]!r}"
        )
    if PASS_CLAIM.search(text):
        return Dropped(
            "the reply claims the test passes; an unstable_assertion never counts as a pass"
        )
    return Accepted(text)
