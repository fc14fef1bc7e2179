"""Hostile and malformed XML in a replay or the property report: refused, named, never expanded."""

from __future__ import annotations

import json

import pytest

from helpers.hostile_support import GOOD_CASE, Repo, Run
from helpers.junit_support import junit

XXE_FILE = """<?xml version="1.0"?>
<!DOCTYPE testsuites [<!ENTITY xxe SYSTEM "file://{secret}">]>
<testsuites><testsuite name="s"><testcase classname="c" name="&xxe;"/></testsuite></testsuites>"""
XXE_PARAMETER = """<?xml version="1.0"?>
<!DOCTYPE testsuites [<!ENTITY % p SYSTEM "file://{secret}"> %p;]>
<testsuites><testsuite name="s"><testcase classname="c" name="x"/></testsuite></testsuites>"""
EXTERNAL_DTD = """<?xml version="1.0"?>
<!DOCTYPE testsuites SYSTEM "http://127.0.0.1:9/evil.dtd">
<testsuites><testsuite name="s"><testcase classname="c" name="x"/></testsuite></testsuites>"""
LAUGHS = (
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    + "".join(
        f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">'
        for i in range(1, 10)
    )
    + ']><testsuites><testsuite name="s"><testcase classname="c" name="&lol9;"/></testsuite></testsuites>'
)
QUADRATIC = (
    f'<?xml version="1.0"?><!DOCTYPE q [<!ENTITY a "{"x" * 50_000}">]>'
    f'<testsuites><testsuite name="s"><testcase classname="c" name="{"&a;" * 10_000}"/>'
    "</testsuite></testsuites>"
)
DEEP = "<testsuites>" + "<testsuite>" * 5_000 + "</testsuite>" * 5_000 + "</testsuites>"
DEEP_IN_CASE = junit(
    '<testcase classname="c" name="x">' + "<a>" * 5_000 + "</a>" * 5_000 + "</testcase>"
)
LONG_CLASSNAME = junit(f'<testcase classname="{".".join(["a"] * 400_000)}" name="x"/>')

REFUSED = {
    "xxe-file": (XXE_FILE, "DOCTYPE"),
    "xxe-parameter-entity": (XXE_PARAMETER, "DOCTYPE"),
    "external-dtd": (EXTERNAL_DTD, "DOCTYPE"),
    "billion-laughs": (LAUGHS, "DOCTYPE"),
    "quadratic-blowup": (QUADRATIC, "DOCTYPE"),
    "deep-nesting": (DEEP, "nested deeper"),
    "deep-nesting-in-a-testcase": (DEEP_IN_CASE, "elements nested deeper than 256"),
    "800-kb-dotted-classname": (LONG_CLASSNAME, "a test id longer than 16384 characters"),
    "truncated": (junit(GOOD_CASE)[:60], "not well-formed XML"),
    "empty": ("", "not well-formed XML"),
    "not-junit-root": ("<html><body>hi</body></html>", "root element is <html>"),
    "plain-text": ("all tests passed", "not well-formed XML"),
    "template": (
        '<testsuites><testcase name="x" time="<<computed>>"/></testsuites>',
        "not well-formed",
    ),
    "testcase-in-testcase": (junit('<testcase name="a"><testcase name="b"/></testcase>'), "inside"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_hostile_replay_is_refused_and_its_tests_are_unknown(
    repo: Repo, checked_gate: Run, name: str
) -> None:
    payload, problem = REFUSED[name]
    path = repo.replay(1, payload.replace("{secret}", str(repo.secret)))
    code, _, _ = checked_gate()
    assert code == 1
    report = json.loads((repo.root / "waiver.json").read_text())
    assert report["blocked"] is True
    [error] = report["replays"]["errors"]
    assert error["source"] == str(path)
    assert problem in error["problem"]
    assert {row["class"] for row in report["rows"]} == {"unknown_test"}
    assert "| `unknown_test` | 1 |" in (repo.root / "summary.md").read_text()


@pytest.mark.parametrize("name", ["xxe-file", "billion-laughs", "deep-nesting", "empty"])
def test_a_hostile_property_report_is_exit_2_naming_the_file(
    repo: Repo, checked_gate: Run, name: str
) -> None:
    payload, problem = REFUSED[name]
    (repo.root / "properties.xml").write_text(payload.replace("{secret}", str(repo.secret)))
    code, _, err = checked_gate()
    assert code == 2
    assert str(repo.root / "properties.xml") in err
    assert problem in err
    report = json.loads((repo.root / "waiver.json").read_text())
    assert report["blocked"] is True
    assert report["error"]["source"] == str(repo.root / "properties.xml")


@pytest.mark.slow
def test_a_12_mb_attribute_and_text_node_are_read(repo: Repo, checked_gate: Run) -> None:
    huge = "x" * (12 << 20)
    for replay in range(1, 6):
        repo.replay(
            replay,
            junit(
                f'<testcase classname="suite.Good" name="test_ok" note="{huge}">'
                f"<system-out>{huge}</system-out></testcase>"
            ),
        )
    checked_gate(codes=(0,))
    report = json.loads((repo.root / "waiver.json").read_text())
    assert report["replays"]["errors"] == []
    assert [row["class"] for row in report["rows"]] == ["stable_pass"]


def test_a_bom_and_latin_1_report_is_read(repo: Repo, checked_gate: Run) -> None:
    latin = (
        '<?xml version="1.0" encoding="ISO-8859-1"?><testsuites><testsuite name="s">'
        '<testcase classname="suite.Good" name="test_ok"/>'
        '<testcase classname="suite.Good" name="caf\xe9"/></testsuite></testsuites>'
    )
    bom = (
        b"\xef\xbb\xbf"
        + junit(GOOD_CASE, '<testcase classname="suite.Good" name="café"/>').encode()
    )
    for replay in range(1, 6):
        repo.replay(replay, latin.encode("latin-1") if replay % 2 else bom)
    checked_gate(codes=(0,))
    report = json.loads((repo.root / "waiver.json").read_text())
    assert [row["test_id"] for row in report["rows"]] == ["suite.Good::café", "suite.Good::test_ok"]
    assert {row["replay_total"] for row in report["rows"]} == {5}


def test_a_report_over_the_size_cap_is_refused(repo: Repo, checked_gate: Run) -> None:
    path = repo.replay(2, junit(GOOD_CASE, f"<!-- {'x' * 5000} -->"))
    code, _, _ = checked_gate("--max-report-bytes", "4096")
    assert code == 1
    report = json.loads((repo.root / "waiver.json").read_text())
    [error] = report["replays"]["errors"]
    assert error["source"] == str(path)
    assert "larger than the cap of 4096 bytes" in error["problem"]


def test_a_symlinked_replay_is_refused(repo: Repo, checked_gate: Run) -> None:
    target = repo.root / "reports" / "run-1.xml"
    link = repo.root / "reports" / "run-6.xml"
    link.symlink_to(target)
    code, _, _ = checked_gate()
    assert code == 1
    report = json.loads((repo.root / "waiver.json").read_text())
    [error] = report["replays"]["errors"]
    assert error["replay"] == 6
    assert "symlink" in error["problem"]
