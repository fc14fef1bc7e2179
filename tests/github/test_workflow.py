"""GitHub output: workflow-command escaping, annotations, step outputs, the job summary.

The example's blocked, review and clean outcomes, and a hostile test name, are compared
with golden files under tests/golden/ (rewrite them with WAIVER_REGENERATE=1), and the
summaries are rendered by GitHub's own Markdown engine (cmark-gfm) to show that nothing
in them turns into HTML, a link, an image or a mention.
"""

from __future__ import annotations

import io
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

import pytest

from helpers.markdown_support import render_like_github
from helpers.support import (
    EMPTY,
    KNOWN,
    REPO,
    ROUND_TRIP,
    check_golden,
    gate_args,
    load_report,
    read_github_output,
    replay_assertions,
    report_document,
    run_gate,
)
from waiver.cli import main
from waiver.github.workflow import (
    command,
    escape_data,
    escape_property,
    output_values,
    publish,
    render_annotations,
    render_log,
    render_outputs,
    repository_file,
    stop_commands,
)
from waiver.model import TestClass
from waiver.write.summary.summary import render_summary

GOLDEN = REPO / "tests" / "golden"
# A line separator, not a newline: a test id holding a control character is refused with
# its report (tests/hostile/test_hostile_control_ids.py), so what the renderers spell out is
# the break other readers make of U+2028.
HOSTILE_NAME = "evil | `tick` <img src=x> @org/team ](http://x)\u2028::error::fake %0A"
HOSTILE = f"tests/assertions/test_slug.py::{HOSTILE_NAME}"


def unescape_data(text: str) -> str:
    """What the runner makes of a command's data (the inverse of escape_data)."""
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def tokens(*values: str) -> Iterator[str]:
    yield from values


# --- escaping -------------------------------------------------------------------------


def test_data_escapes_percent_first_then_line_breaks() -> None:
    assert escape_data("50% a\r\nb %0A") == "50%25 a%0D%0Ab %250A"


def test_properties_also_escape_colon_and_comma() -> None:
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_command_joins_escaped_properties_and_data() -> None:
    line = command("error", {"title": "x: y", "file": "a,b.py"}, "m\n::error::fake")
    assert line == "::error title=x%3A y,file=a%2Cb.py::m%0A::error::fake"


def test_stop_commands_draws_a_token_that_the_text_does_not_contain() -> None:
    text = "line with aaaa\n::error::not a command"
    wrapped = stop_commands(text, tokens("aaaa", "bbbb").__next__)
    assert wrapped == f"::stop-commands::bbbb\n{text}\n::bbbb::\n"


def test_stop_commands_tokens_are_random() -> None:
    first, second = stop_commands("x"), stop_commands("x")
    assert first != second
    assert first.startswith("::stop-commands::") and len(first.splitlines()[0]) == 17 + 32


# --- step outputs ---------------------------------------------------------------------


def test_outputs_use_a_heredoc_whose_delimiter_is_not_in_the_value() -> None:
    value = "line\nghadelimiter_one\nsneaky=true"
    text = render_outputs({"waiver-json": value}, tokens("one", "two").__next__)
    assert text == f"waiver-json<<ghadelimiter_two\n{value}\nghadelimiter_two\n"


def test_output_delimiters_are_fresh_for_each_output() -> None:
    text = render_outputs({"a": "1", "b": "2"})
    delimiters = [line.split("<<")[1] for line in text.splitlines() if "<<" in line]
    assert len(set(delimiters)) == 2
    assert all(d.startswith("ghadelimiter_") and len(d) == 13 + 32 for d in delimiters)


def test_output_values_name_every_count() -> None:
    report = {
        "blocked": True,
        "verdict": "blocked",
        "counts": {test_class.value: number for number, test_class in enumerate(TestClass)},
        "error": None,
    }
    assert output_values(report, "out/waiver.json") == {
        "blocked": "true",
        "verdict": "blocked",
        "waiver-json": "out/waiver.json",
        "error": "",
        "count-property-violation": "0",
        "count-fixture-drift": "1",
        "count-unknown-test": "2",
        "count-stable-pass": "3",
        "count-unstable-assertion": "4",
        "count-stable-assertion-fail": "5",
    }


def test_an_output_value_cannot_set_another_output() -> None:
    values = {"waiver-json": "a\nblocked=false\nverdict<<X\nclean\nX", "blocked": "true"}
    assert read_github_output(render_outputs(values)) == values


# --- file= ----------------------------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("")
    (tmp_path / "tests" / "odd,name:x.py").write_text("")
    (tmp_path / "tests" / "folder.py").mkdir()
    (tmp_path / "tests" / "link.py").symlink_to(tmp_path / "tests" / "test_a.py")
    (tmp_path / "linked").symlink_to(tmp_path / "tests")
    return tmp_path


@pytest.mark.parametrize(
    ("test_id", "expected"),
    [
        ("tests/test_a.py::test_x", "tests/test_a.py"),
        ("tests/test_a.py::Class::test_x[1]", "tests/test_a.py"),
        ("tests/odd,name:x.py::t", "tests/odd,name:x.py"),
        ("tests/missing.py::t", None),
        ("tests/folder.py::t", None),
        ("tests/link.py::t", None),
        ("linked/test_a.py::t", None),
        ("tests/../tests/test_a.py::t", None),
        ("./tests/test_a.py::t", None),
        ("tests//test_a.py::t", None),
        ("../outside.py::t", None),
        ("/etc/passwd::t", None),
        ("tests/test_a.py", None),
        ("com.acme.FooTest::bar", None),
        ("tests\\test_a.py::t", None),
    ],
)
def test_file_is_named_only_for_a_real_regular_file(
    tree: Path, test_id: str, expected: str | None
) -> None:
    assert repository_file(test_id, str(tree), str(tree)) == expected


def test_file_is_relative_to_the_workspace_when_the_root_is_a_subfolder(tree: Path) -> None:
    root = tree / "tests"
    (root / "inner.py").write_text("")
    assert repository_file("inner.py::t", str(root), str(tree)) == "tests/inner.py"
    assert repository_file("inner.py::t", str(root), str(tree / "elsewhere")) is None


def test_a_file_name_with_comma_and_colon_is_escaped_in_the_property(tree: Path) -> None:
    report = report_document([("tests/odd,name:x.py::t", "stable_assertion_fail")])
    assert render_annotations(report, str(tree), str(tree)) == (
        "::error title=waiver%3A stable_assertion_fail,file=tests/odd%2Cname%3Ax.py::"
        "tests/odd,name:x.py::t: failed in every replay (passed 0 of 5 replays)\n"
    )


# --- annotation cap -------------------------------------------------------------------


def test_annotations_are_capped_at_ten_per_kind_with_a_final_notice(tmp_path: Path) -> None:
    rows = [(f"t::fail_{n:02}", "stable_assertion_fail") for n in range(25)]
    rows += [(f"t::flip_{n:02}", "unstable_assertion") for n in range(12)]
    rows += [(f"t::pass_{n:02}", "stable_pass") for n in range(30)]
    lines = render_annotations(report_document(rows), str(tmp_path), str(tmp_path)).splitlines()

    assert [line.split(" ", 1)[0] for line in lines] == ["::error"] * 10 + ["::warning"] * 10 + [
        "::notice"
    ]
    assert "t::fail_00" in lines[0] and "t::fail_09" in lines[9]
    assert "t::flip_00" in lines[10] and "t::flip_09" in lines[19]
    assert lines[20] == (
        "::notice title=waiver%3A more annotations::15 more errors and 2 more warnings are "
        "listed in the job summary and in waiver.json"
    )


def test_every_blocking_row_is_an_error_and_only_an_unstable_one_a_warning(
    tmp_path: Path,
) -> None:
    rows = [
        ("t::drift", "fixture_drift"),
        ("t::new", "unknown_test"),
        ("t::flip", "unstable_assertion"),
        ("t::property", "property_violation"),
        ("t::fail", "stable_assertion_fail"),
        ("t::pass", "stable_pass"),
    ]
    lines = render_annotations(report_document(rows), str(tmp_path), str(tmp_path)).splitlines()

    assert [line.split("::", 2)[1] for line in lines] == [
        "error title=waiver%3A property_violation",
        "error title=waiver%3A fixture_drift",
        "error title=waiver%3A stable_assertion_fail",
        "error title=waiver%3A unknown_test",
        "warning title=waiver%3A unstable_assertion",
    ]


def test_no_notice_when_nothing_is_left_out(tmp_path: Path) -> None:
    rows = [(f"t::fail_{n}", "fixture_drift") for n in range(10)]
    lines = render_annotations(report_document(rows), str(tmp_path), str(tmp_path)).splitlines()
    assert len(lines) == 10
    assert all(line.startswith("::error title=waiver%3A fixture_drift::") for line in lines)


def test_a_strict_unstable_row_is_an_error(tmp_path: Path) -> None:
    report = report_document([("t::flaky", "unstable_assertion")])
    report["rows"][0]["strict"] = True
    assert render_annotations(report, str(tmp_path), str(tmp_path)) == (
        "::error title=waiver%3A unstable_assertion::t::flaky: flips between replays under a "
        "strict pattern: blocks, and gets no freeze (passed 2 of 5 replays)\n"
    )


def test_an_input_error_is_one_error_annotation(tmp_path: Path) -> None:
    report = report_document([])
    report["error"] = {"source": "fixture.lock", "problem": "line 3\n::error::x"}
    assert render_annotations(report, str(tmp_path), str(tmp_path)) == (
        "::error title=waiver%3A input error::fixture.lock: line 3<U+000A>::error::x\n"
    )


def test_the_log_lists_at_most_a_hundred_rows() -> None:
    rows = [(f"t::fail_{n:03}", "stable_assertion_fail") for n in range(150)]
    lines = render_log(report_document(rows)).splitlines()
    assert len(lines) == 101
    assert lines[0] == "stable_assertion_fail  0/5  t::fail_000"
    assert lines[-1] == "... and 50 more in waiver.json"


# --- the summary's size limit ---------------------------------------------------------


def test_summary_stays_under_one_mebibyte_and_counts_what_it_left_out() -> None:
    rows = [(f"tests/test_{n:06}.py::" + "x" * 250, "unknown_test") for n in range(20_000)]
    rows += [(f"tests/pass_{n:06}.py::ok", "stable_pass") for n in range(100_000)]
    summary = render_summary(report_document(rows))

    assert len(summary.encode("utf-8")) <= 1 << 20
    shown_rows = summary.count("| `unknown_test` | `tests/test_")
    shown_passes = summary.count("\n- `tests/pass_")
    left_out = 20_000 - shown_rows + 100_000 - shown_passes
    assert left_out > 0
    assert summary.endswith(
        f"_{left_out} rows left out to stay under 1 MiB; all of them are in waiver.json._\n"
    )


# --- the example: goldens -------------------------------------------------------------


def replay_without(work: Path, *deselected: str) -> Path:
    """The example replayed again without some tests, which its registry drops too."""
    shutil.rmtree(work / "reports")
    kept = [test_id for test_id in (KNOWN, ROUND_TRIP, EMPTY) if test_id not in deselected]
    (work / "known-tests.txt").write_text("".join(f"{test_id}\n" for test_id in sorted(kept)))
    replay_assertions(work, *deselected, counter=".demo-counter-variant")
    return work


def add_hostile_test(work: Path) -> Path:
    """A test with a hostile name that fails in every replay, and no registry."""
    case = (
        f"<testcase classname={quoteattr('tests.assertions.test_slug')} "
        f'name={quoteattr(HOSTILE_NAME)} time="0.001">'
        '<failure message="boom">boom</failure></testcase>'
    )
    for report in sorted((work / "reports").glob("run-*.xml")):
        text = report.read_text()
        report.write_text(text.replace("</testsuite>", case + "</testsuite>", 1))
    return work


def gate_document(work: Path, outcome: str) -> dict[str, Any]:
    if outcome in ("drift", "skipped", "skipped-unregistered"):
        fixture = work / "fixtures" / "slugs.json"
        fixture.write_bytes(fixture.read_bytes() + b" ")
    if outcome in ("skipped", "skipped-unregistered"):
        # Drift stopped the replays before any ran: the reports folder was never made.
        shutil.rmtree(work / "reports")
    if outcome == "skipped-unregistered":
        args = gate_args(work)
        at = args.index("--known-tests")
        del args[at : at + 2]
        assert main(args) == 1
        return load_report(work / "waiver.json")
    elif outcome == "unknown":
        # One test new to the registry, one gone from the replays, and too few replays.
        registry = work / "known-tests.txt"
        registry.write_text(registry.read_text().replace(EMPTY, EMPTY + "_renamed"))
        return run_gate(work, "--min-replays", "6")[1]
    elif outcome == "review":
        replay_without(work, EMPTY)
    elif outcome == "clean":
        replay_without(work, EMPTY, ROUND_TRIP)
    elif outcome == "harness":
        # The change adds a conftest.py and edits pytest.ini: drift in the test harness.
        (work / "conftest.py").write_text("collect_ignore = []\n")
        (work / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider -q\n")
    elif outcome == "hostile":
        add_hostile_test(work)
        args = gate_args(work)
        at = args.index("--known-tests")
        del args[at : at + 2]
        main(args)
        return load_report(work / "waiver.json")
    return run_gate(work)[1]


@pytest.mark.parametrize(
    "outcome",
    [
        "blocked", pytest.param("review", marks=pytest.mark.slow),
        pytest.param("clean", marks=pytest.mark.slow), "hostile", "drift", "unknown",
        "harness", "skipped", "skipped-unregistered",
    ],
)  # fmt: skip
def test_summary_and_annotations_of_the_example_match_the_goldens(
    example: Path, outcome: str
) -> None:
    document = gate_document(example, outcome)
    assert document["verdict"] == {"review": "review", "clean": "clean"}.get(outcome, "blocked")

    summary = render_summary(document)
    annotations = render_annotations(document, str(example), str(example))
    check_golden(GOLDEN / "summary" / f"{outcome}.md", summary)
    check_golden(GOLDEN / "annotations" / f"{outcome}.txt", annotations)

    rendered = render_like_github(summary)
    # Only the structure the renderer writes itself: no image, link, or raw HTML element.
    assert rendered.tags <= {
        "h2", "h3", "p", "strong", "em", "code", "table", "thead", "tbody", "tr", "th", "td",
        "details", "summary", "ul", "li",
    }  # fmt: skip
    assert len(set(rendered.row_widths)) <= 2  # the counts table (3) and one other width
    plain = "".join(rendered.plain_text)
    for dangerous in ("@org/team", "<img", "](http", "::error::fake", "http://x"):
        assert dangerous not in plain


def test_the_hostile_name_is_inert_everywhere(example: Path) -> None:
    document = gate_document(example, "hostile")
    assert HOSTILE in [row["test_id"] for row in document["rows"]]

    annotations = render_annotations(document, str(example), str(example)).splitlines()
    # Every line is one of ours; the name's own "::error::fake" never starts a line.
    # The last is the run's own: this example has no registry.
    assert [line.split(" ", 1)[0] for line in annotations] == [
        "::error",
        "::error",
        "::warning",
        "::error",
    ]
    assert annotations[-1].startswith("::error title=waiver%3A blocked::no known-tests registry")
    hostile = annotations[0]
    assert hostile.startswith(
        "::error title=waiver%3A stable_assertion_fail,file=tests/assertions/test_slug.py::"
    )
    shown = unescape_data(hostile.split("::", 2)[2])
    # The one line break is ours, before the first failure message; the name's is spelled out.
    named, _, failure = shown.partition("\nfirst failure: ")
    assert "\u2028" not in named and "<U+2028>::error::fake %0A" in named
    assert failure == "boom"

    summary_rows = [line for line in render_summary(document).splitlines() if "evil" in line]
    assert summary_rows == [
        "| `stable_assertion_fail` ⛔ | ``tests/assertions/test_slug.py::evil \\| `tick` "
        "<img src=x> @org/team ](http://x)<U+2028>::error::fake %0A`` | 0/5 ✘✘✘✘✘ | — | `boom` |"
    ]
    rendered = render_like_github(render_summary(document))
    assert set(rendered.row_widths) == {3, 5}

    log = render_log(document)
    assert "\u2028" not in log and "<U+2028>::error::fake" in log


# --- publish and the command on a runner ----------------------------------------------


def runner_files(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "output.txt").touch()
    (tmp_path / "summary.md").touch()
    return {
        "GITHUB_ACTIONS": "true",
        "GITHUB_OUTPUT": str(tmp_path / "output.txt"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
    }


def test_publish_writes_annotations_outputs_and_summary(example: Path, tmp_path: Path) -> None:
    document = gate_document(example, "blocked")
    env = {**runner_files(tmp_path), "GITHUB_WORKSPACE": str(example)}
    stream = io.StringIO()

    publish(
        env,
        document,
        report_path="waiver.json",
        root=str(example),
        summary_written_to=None,
        stream=stream,
    )

    log = stream.getvalue()
    assert log.startswith(render_annotations(document, str(example), str(example)))
    token = log.splitlines()[2].removeprefix("::stop-commands::")
    assert log.endswith(f"::stop-commands::{token}\n{render_log(document)}\n::{token}::\n")
    assert read_github_output((tmp_path / "output.txt").read_text())["blocked"] == "true"
    assert (tmp_path / "summary.md").read_text() == render_summary(document)


@pytest.mark.slow
def test_publish_does_not_repeat_a_summary_that_summary_already_wrote(
    example: Path, tmp_path: Path
) -> None:
    document = gate_document(example, "clean")
    env = runner_files(tmp_path)
    publish(
        env,
        document,
        report_path="waiver.json",
        root=str(example),
        summary_written_to=env["GITHUB_STEP_SUMMARY"],
        stream=io.StringIO(),
    )
    assert (tmp_path / "summary.md").read_text() == ""


def test_gate_on_a_runner(
    example: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    env = runner_files(tmp_path)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("GITHUB_WORKSPACE", str(example))

    code = main(gate_args(example, "--summary", env["GITHUB_STEP_SUMMARY"]))

    assert code == 1
    document = load_report(example / "waiver.json")
    out = capsys.readouterr().out
    assert out.startswith(render_annotations(document, str(example), str(example)))
    assert out.endswith(f"waiver: blocked; report written to {example / 'waiver.json'}\n")
    outputs = read_github_output((tmp_path / "output.txt").read_text())
    assert outputs == {
        "blocked": "true",
        "verdict": "blocked",
        "waiver-json": str(example / "waiver.json"),
        "error": "",
        "count-property-violation": "0",
        "count-fixture-drift": "0",
        "count-unknown-test": "0",
        "count-stable-pass": "1",
        "count-unstable-assertion": "1",
        "count-stable-assertion-fail": "1",
    }
    # --summary named the runner's file: written once, not twice.
    assert (tmp_path / "summary.md").read_text() == render_summary(document)


def test_an_input_error_on_a_runner_still_sets_outputs_and_annotates(
    example: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name, value in runner_files(tmp_path).items():
        monkeypatch.setenv(name, value)
    (example / "properties.xml").unlink()

    assert main(gate_args(example)) == 2

    out = capsys.readouterr().out
    assert out == (
        f"::error title=waiver%3A input error::{example / 'properties.xml'}: file not found\n"
    )
    outputs = read_github_output((tmp_path / "output.txt").read_text())
    assert (outputs["blocked"], outputs["verdict"]) == ("true", "blocked")
    assert outputs["error"] == f"{example / 'properties.xml'}: file not found"
    assert "**Input error**" in (tmp_path / "summary.md").read_text()


def test_off_a_runner_nothing_github_specific_is_printed(
    example: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    assert main(gate_args(example)) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"waiver: blocked; report written to {example / 'waiver.json'}\n")
    assert "::" not in out.replace("py::", "")
