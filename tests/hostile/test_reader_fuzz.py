"""Hypothesis fuzzing of the JUnit reader: generated documents, mangled bytes, shards."""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from waiver.errors import InputError
from waiver.read.junit.replay_reports import Limits, Tally, read_replay
from waiver.read.junit.testid import TestIdRule

# Text that XML 1.0 can carry: no surrogates, no C0 controls but tab, LF and CR.
xml_text = st.text(
    st.characters(
        blacklist_categories=("Cs",),
        blacklist_characters="".join(chr(c) for c in range(32) if c not in (9, 10, 13))
        + "\ufffe\uffff",
    ),
    max_size=12,
)
# Text a test id can hold: printable, no control character of any kind (C0, DEL, C1), which
# the reader refuses in an id (tests/hostile/test_hostile_control_ids.py).
id_text = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=12)
RESULTS = [
    "failure",
    "error",
    "skipped",
    "flakyFailure",
    "flakyError",
    "rerunFailure",
    "rerunError",
    "system-out",
]


@st.composite
def case_elements(draw: st.DrawFn) -> str:
    attrs = f" classname={quoteattr(draw(st.sampled_from(['a.B', 'pkg.mod', '', '../x'])))}"
    attrs += f" name={quoteattr(draw(st.sampled_from(['t1', 't2', 't[3]', 'é'])))}"
    if draw(st.booleans()):
        attrs += f" time={quoteattr(draw(st.sampled_from(['1', '-3', '2,503.1', 'NaN', ''])))}"
    if draw(st.booleans()):
        attrs += f" status={quoteattr(draw(st.sampled_from(['run', 'notrun', 'disabled'])))}"
    children = draw(st.lists(st.sampled_from(RESULTS), max_size=3))
    body = "".join(
        f"<{c} message={quoteattr(draw(xml_text))}>{escape(draw(xml_text))}</{c}>" for c in children
    )
    return f"<testcase{attrs}>{body}</testcase>"


@st.composite
def suites(draw: st.DrawFn, depth: int = 0) -> str:
    parts = draw(st.lists(case_elements(), max_size=4))
    if depth < 3:
        parts += draw(st.lists(suites(depth + 1), max_size=2))  # type: ignore[call-arg]
    name = quoteattr(draw(id_text))
    return f"<testsuite name={name} tests={quoteattr(str(draw(st.integers(-1, 9))))}>{''.join(parts)}</testsuite>"


def read_files(paths: list[Path]) -> Tally:
    tally = Tally()
    read_replay([str(p) for p in paths], TestIdRule(None), tally, Limits())
    return tally


def outcomes(tally: Tally) -> dict[str, int]:
    return {test_id: tally.replays[0][i] & 7 for i, test_id in enumerate(tally.ids)}


@pytest.mark.slow
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(suites(), min_size=1, max_size=3), st.data())
def test_read_whole_or_as_shards_gives_the_same_outcomes(
    tmp_path: Path, documents: list[str], data: st.DataObject
) -> None:
    whole = tmp_path / "whole.xml"
    whole.write_text(f"<testsuites>{''.join(documents)}</testsuites>", encoding="utf-8")
    shards = []
    for number, document in enumerate(documents):
        shard = tmp_path / f"shard-{number}.xml"
        root = data.draw(st.sampled_from(["testsuites", None]))
        shard.write_text(f"<{root}>{document}</{root}>" if root else document, encoding="utf-8")
        shards.append(shard)
    assert outcomes(read_files([whole])) == outcomes(read_files(shards))


@pytest.mark.slow
@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(suites(), st.data())
def test_mangled_bytes_never_raise_anything_but_an_input_error(
    tmp_path: Path, document: str, data: st.DataObject
) -> None:
    raw = bytearray(document.encode("utf-8"))
    for _ in range(data.draw(st.integers(1, 4))):
        if not raw:
            break
        at = data.draw(st.integers(0, len(raw) - 1))
        action = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        if action == "flip":
            raw[at] = data.draw(st.integers(0, 255))
        elif action == "cut":
            del raw[at:]
        else:
            raw[at:at] = data.draw(
                st.sampled_from([b"<", b"&", b"<!DOCTYPE x>", b"\x00", b"]]>", b"<testcase>"])
            )
    path = tmp_path / "mangled.xml"
    path.write_bytes(bytes(raw))
    caught: InputError | None = None
    try:
        read_files([path])
    except InputError as error:
        caught = error
    if caught is not None:
        assert caught.source == str(path)
        assert caught.problem
