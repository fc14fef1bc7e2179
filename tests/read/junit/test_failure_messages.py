"""The first failure message of each testcase: the `message` attribute, else the text, one
line, capped while it is read."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator

import pytest

from helpers.junit_support import suite
from waiver.read.junit.stream import ELLIPSIS, MAX_MESSAGE_CHARS, read_junit


def messages(document: str, chunk: int | None = None) -> list[str]:
    """The message the reader hands on with each case, `document` fed whole or in chunks."""
    data = document.encode()
    pieces = [data] if chunk is None else [data[i : i + chunk] for i in range(0, len(data), chunk)]
    found: list[str] = []
    read_junit(pieces, "report.xml", lambda *case: found.append(case[5]))
    return found


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('<failure message="assert 1 == 2">Traceback …</failure>', "assert 1 == 2"),
        ("<failure>--- FAIL: TestOne\n    one_test.go:12: got 2</failure>",
         "--- FAIL: TestOne one_test.go:12: got 2"),
        ('<error message="">\n\n  boom\n</error>', "boom"),
        ('<failure message="   "><![CDATA[expected <1> but was <2>]]></failure>',
         "expected <1> but was <2>"),
        ('<failure message="line one&#10;  line two"/>', "line one line two"),
        ('<failure><stackTrace>at A.b(A.java:3)</stackTrace></failure>', "at A.b(A.java:3)"),
        ('<flakyFailure message="first"/><failure message="second"/>', "first"),
        ("<rerunFailure/><rerunError>the text of the second</rerunError>",
         "the text of the second"),
        ('<skipped message="not a failure"/>', ""),
        ('<system-out>not a failure</system-out><failure type="Bare"/>', ""),
        ("", ""),
    ],
)  # fmt: skip
@pytest.mark.parametrize("chunk", [None, 1, 5])
def test_the_message_is_the_attribute_else_the_text_on_one_line(
    body: str, message: str, chunk: int | None
) -> None:
    document = suite(f'<testcase name="t">{body}</testcase><testcase name="u"/>')
    assert messages(document, chunk) == [message, ""]


def test_text_after_the_failure_is_not_read_into_its_message() -> None:
    body = "<failure/><system-out>captured output</system-out>"
    assert messages(suite(f'<testcase name="t">{body}</testcase>')) == [""]


def test_a_suite_level_failure_has_its_message_too() -> None:
    document = suite('<failure>class did not load</failure><testcase name="t"/>')
    assert messages(document) == ["", "class did not load"]


@pytest.mark.parametrize(
    "body",
    [
        '<failure message="{}"/>',
        "<failure>{}</failure>",
        "<failure><![CDATA[{}]]></failure>",
    ],
)
def test_a_long_message_is_cut_with_an_ellipsis(body: str) -> None:
    long = " ".join(f"word{n}" for n in range(2_000))
    [message] = messages(suite(f'<testcase name="t">{body.format(long)}</testcase>'), 4096)
    assert len(message) == MAX_MESSAGE_CHARS
    assert message.startswith("word0 word1 word2 ")
    assert message.endswith(ELLIPSIS)


def test_text_cut_where_it_was_read_ends_in_an_ellipsis_even_when_short() -> None:
    """A traceback's first lines fold to little, but the failure said more than was read."""
    text = "short" + " " * 100_000 + "more"
    [message] = messages(suite(f'<testcase name="t"><failure>{text}</failure></testcase>'))
    assert message == "short" + ELLIPSIS


def lazy_report(text_bytes: int) -> Iterator[bytes]:
    """A report whose one failure has `text_bytes` of text, made 64 KiB at a time."""
    yield b'<testsuites><testsuite name="s"><testcase name="t"><failure>'
    line = b"E   AssertionError: a line of a very long failure\n"
    block = line * (65_536 // len(line))
    for _ in range(text_bytes // len(block)):
        yield block
    yield b'</failure></testcase><testcase name="u"/></testsuite></testsuites>'


def test_ten_megabytes_of_failure_text_are_never_held() -> None:
    found: list[str] = []
    tracemalloc.start()
    try:
        read_junit(lazy_report(10 << 20), "report.xml", lambda *case: found.append(case[5]))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
    assert len(found[0]) == MAX_MESSAGE_CHARS
    assert found[0].startswith("E AssertionError: a line of a very long failure E ")
    assert found == [found[0], ""]
