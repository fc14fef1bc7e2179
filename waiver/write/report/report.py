"""waiver.json: the decision and everything it was made from, as one JSON document."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from datetime import datetime
from itertools import compress, islice, repeat
from json.encoder import encode_basestring_ascii
from operator import attrgetter, is_, not_
from typing import cast

from waiver import __version__
from waiver.decide.policy import Policy, policy_key
from waiver.errors import InputError, UsageError
from waiver.model import (
    BaseFinding,
    BaseMeaning,
    BaseVersionFinding,
    Decision,
    Finding,
    FreezeProposal,
    FreezeRecord,
    HistoryFinding,
    RedGreenFinding,
    Row,
    Rows,
    TestClass,
    Verdict,
)
from waiver.read.policy.settings import Settings
from waiver.write.report import report_types
from waiver.write.report.report_sections import (
    BaseReplays,
    admission_json,
    base_replays_json,
    timestamp,
)

SCHEMA_VERSION = 2
Json = dict[str, object]


@dataclass(frozen=True)
class Context:
    """What the gate read, for the report, each section shaped by `report_sections`; each
    part is None when that input was not used."""

    fixtures: report_types.FixturesJson | None = None
    properties: report_types.PropertiesJson | None = None
    replays: report_types.ReplaysJson | None = None
    registry: report_types.RegistryJson | None = None
    trusted_revision: str | None = None
    skipped: Sequence[str] = field(default=())
    run_blockers: Sequence[str] = field(default=())  # what blocks the run, apart from rows
    base: BaseReplays | None = None  # the base replays, only when they were given
    approvals: report_types.ApprovalsJson | None = None  # only when asked to read them
    provenance: report_types.ProvenanceJson | None = None  # the reports' run, when given
    history: report_types.HistoryUsedJson | None = None  # the default branch's, when given
    cost: report_types.CostJson | None = None  # what the judged run's jobs cost, when known
    # The change's own tests' reports, when its tests ran apart.
    change_tests: report_types.ChangeTestsJson | None = None


def proposal_json(proposal: FreezeProposal) -> report_types.ProposalJson:
    base = proposal.base
    document: report_types.ProposalJson = {
        "test_id": proposal.test_id,
        "class": TestClass.UNSTABLE_ASSERTION.value,
        "fixture_hash": proposal.fixture_hash,
        "replay_pass": proposal.replay_pass,
        "replay_total": proposal.replay_total,
        "counts_as_pass": False,
        "scope": "single_test_id",
        "issued_at": timestamp(proposal.issued_at),
        "expires_at": timestamp(proposal.expires_at),
    }
    if base is not None:
        document["base_replay_pass"] = base.replay_pass
        document["base_replay_total"] = base.replay_total
    return document


def base_json(base: BaseFinding) -> report_types.RowBaseJson:
    return {
        "replay_pass": base.replay_pass,
        "replay_total": base.replay_total,
        "meaning": base.meaning.value,
        "blocks": base.blocks,
    }


def base_version_json(finding: BaseVersionFinding) -> report_types.RowBaseVersionJson:
    return {
        "replay_pass": finding.replay_pass,
        "replay_total": finding.replay_total,
        "meaning": finding.meaning.value,
    }


def record_json(record: FreezeRecord) -> report_types.StoredJson:
    return {"index": record.index, "record": dict(record.fields)}


def row_json(row: Row) -> report_types.RowJson:
    document: report_types.RowJson = {
        "test_id": row.test_id,
        "class": row.test_class.value,
        "unknown": row.unknown.value if row.unknown is not None else None,
        "replay_pass": row.replay_pass,
        "replay_total": row.replay_total,
        "retries": row.retries,
        "fixture_hash": row.fixture_hash,
        "strict": row.strict,
        "freeze": proposal_json(row.freeze) if row.freeze else None,
        "active_freeze": record_json(row.active_freeze) if row.active_freeze else None,
    }
    if row.base is not None:
        document["base"] = base_json(row.base)
    if row.admitted_by is not None:
        document["admitted_by"] = admission_json(row.admitted_by)
    if row.message is not None:
        document["message"] = row.message
    if row.red_green is not None:
        document["red_green"] = red_green_json(row.red_green)
    if row.outcomes and row.test_class is not TestClass.STABLE_PASS:
        document["outcomes"] = list(row.outcomes)
    if row.history is not None:
        document["history"] = row_history_json(row.history)
    if row.base_version is not None:
        document["base_version"] = base_version_json(row.base_version)
    return document


def row_history_json(history: HistoryFinding) -> report_types.RowHistoryJson:
    return {
        "runs": history.runs,
        "flipped": history.flipped,
        "failed": history.failed,
        "flagged": history.flagged,
    }


def red_green_json(finding: RedGreenFinding) -> report_types.RowRedGreenJson:
    return {
        "outcome": finding.outcome.value,
        "base_pass": finding.base_pass,
        "base_total": finding.base_total,
        "why": finding.why,
        "blocks": finding.blocks,
    }


def policy_json(settings: Settings) -> Json:
    """The effective policy, and for each value whether it is the default, from the file or a flag.

    One member per field of `Policy`, inside its section (`limits`) where it has one."""
    document: Json = {}
    for policy_field in fields(Policy):
        name, section = policy_field.name, policy_key(policy_field).section
        place = document if section is None else cast(Json, document.setdefault(section, {}))
        place[name] = _plain(getattr(settings.policy, name))
    return {**document, "config": settings.config, "sources": dict(settings.sources)}


def _plain(value: object) -> object:
    """A policy value as JSON: tuples become lists, and a `Binding` an object."""
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    if is_dataclass(value) and not isinstance(value, type):
        return {item.name: _plain(getattr(value, item.name)) for item in fields(value)}
    return value


def _header(now: datetime, verdict: Verdict, settings: Settings) -> Json:
    policy = settings.policy
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "waiver", "version": __version__},
        "generated_at": timestamp(now),
        "verdict": verdict.value,
        "blocked": verdict is Verdict.BLOCKED,
        "min_replays": policy.min_replays,
        "policy": policy_json(settings),
    }


def report_json(decision: Decision, settings: Settings, context: Context, now: datetime) -> Json:
    return {
        **_header(now, decision.verdict, settings),
        "run_blockers": list(context.run_blockers),
        "counts": {test_class.value: decision.counts[test_class] for test_class in TestClass},
        "rows": ReportRows(decision.rows),
        "skipped": sorted(context.skipped),
        "fixtures": context.fixtures,
        "properties": context.properties,
        "replays": context.replays,
        "registry": context.registry,
        "trusted_revision": context.trusted_revision,
        "freezes": {
            "active": [record_json(record) for record in decision.active],
            "void": [{**record_json(v.record), "reason": v.reason} for v in decision.void],
        },
        "error": None,
        **({"approvals": context.approvals} if context.approvals is not None else {}),
        **({"provenance": context.provenance} if context.provenance is not None else {}),
        **({"history": context.history} if context.history is not None else {}),
        **({"cost": context.cost} if context.cost is not None else {}),
        **({"change_tests": context.change_tests} if context.change_tests is not None else {}),
        # Present only when base replays were given: without them the report is as before.
        **(
            {"base": base_replays_json(context.base, base_counts(decision.rows))}
            if context.base is not None
            else {}
        ),
    }


def base_counts(rows: Rows) -> dict[str, int]:
    """Rows per base meaning, counted per shared finding rather than per row."""
    distinct = dict(zip(map(id, rows.findings), rows.findings, strict=True))
    counts = dict.fromkeys(BaseMeaning, 0)
    for key, number in Counter(map(id, rows.findings)).items():
        base = distinct[key].base
        if base is not None:
            counts[base.meaning] += number
    return {meaning.value: number for meaning, number in counts.items()}


def error_report_json(
    error: InputError | UsageError, settings: Settings, now: datetime, trusted_revision: str | None
) -> Json:
    """The report of a run that `error` ended: blocked, with the error, no rows, and the
    trusted revision as it was given (it may be the input that was wrong)."""
    if isinstance(error, InputError):
        source, problem = error.source, error.problem
    else:
        source, problem = "usage", str(error)
    return {
        **_header(now, Verdict.BLOCKED, settings),
        "run_blockers": [],
        "counts": {test_class.value: 0 for test_class in TestClass},
        "rows": [],
        "skipped": [],
        "fixtures": None,
        "properties": None,
        "replays": None,
        "registry": None,
        "trusted_revision": trusted_revision,
        "freezes": {"active": [], "void": []},
        "error": {"source": source, "problem": problem},
    }


# Without `indent`, json uses its C encoder; with it, the pure-Python one, which is ten
# times slower and was the largest cost of a 500,000-test run. So the document is indented
# by hand at the top level and each row is one compact line.
_ROW_ENCODER = json.JSONEncoder(separators=(", ", ": "))
_ROW_BATCH = 4096
_ROW_START = '{"test_id": '


def _indented(value: object, margin: str = "  ") -> str:
    """A value of the document's top level as JSON: an object one key a line, and an array
    of objects or arrays one item a line, each item compact like a row. An array of them
    can hold an item per test (`registry.edited`), which the encoder `indent` picks would
    write at a tenth of the speed."""
    inner = margin + "  "
    if isinstance(value, dict) and value:
        items = (
            f"{inner}{json.dumps(key)}: {_indented(item, inner)}" for key, item in value.items()
        )
        return "{\n" + ",\n".join(items) + f"\n{margin}}}"
    if isinstance(value, list) and value and all(isinstance(item, dict | list) for item in value):
        lines = (inner + _ROW_ENCODER.encode(item) for item in value)
        return "[\n" + ",\n".join(lines) + f"\n{margin}]"
    return _ROW_ENCODER.encode(value)


class ReportRows:
    """The rows of a report: `row_json` of each row of a decision, made only when needed.

    A large run has a few distinct findings shared by many ids, so the report is written
    straight from the decision's columns: the text after a row's id is encoded once per
    finding and reused, and the writers that want only the rows that are not a pass get
    them without a dict per passing test.
    """

    def __init__(self, rows: Rows) -> None:
        self.rows = rows
        self._split: tuple[list[str], list[report_types.RowJson]] | None = None

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[report_types.RowJson]:
        return map(row_json, self.rows)

    def lines(self) -> Iterator[str]:
        """Each row as one line of compact JSON, as `_ROW_ENCODER` writes its `row_json`."""
        rows = self.rows
        test_ids, findings = rows.test_ids, rows.findings
        # Findings are shared between rows, so by identity there are only a few of them.
        distinct = dict(zip(map(id, findings), findings, strict=True))
        rests = {key: _rest(finding) for key, finding in distinct.items()}
        start = 0
        own = rows.own()
        for number in [*sorted(own), len(rows)]:
            # Up to the next row with a freeze or a message, each line is the escaped id
            # and its rest.
            yield from (
                _ROW_START + encode_basestring_ascii(test_id) + rest
                for test_id, rest in zip(
                    test_ids[start:number],
                    map(rests.__getitem__, map(id, findings[start:number])),
                    strict=True,
                )
            )
            if number < len(rows):
                yield _ROW_ENCODER.encode(row_json(rows[number]))
            start = number + 1

    def split(self) -> tuple[list[str], list[report_types.RowJson]]:
        """The ids of the stable passes, in order, and `row_json` of every other row: worked
        out once, for the summary and the terminal both; each caller gets lists of its own."""
        if self._split is None:
            self._split = self._split_rows()
        passes, others = self._split
        return list(passes), list(others)

    def _split_rows(self) -> tuple[list[str], list[report_types.RowJson]]:
        rows = self.rows
        passing = list(
            map(is_, map(attrgetter("test_class"), rows.findings), repeat(TestClass.STABLE_PASS))
        )
        passes = list(compress(rows.test_ids, passing))
        own = rows.own()
        # A row with nothing of its own is its finding's row under its id: one `row_json`
        # per finding, copied, and the nested parts shared, which no writer changes.
        shared: dict[int, report_types.RowJson] = {}
        others = []
        for number in compress(range(len(rows)), map(not_, passing)):
            if number in own:
                others.append(row_json(rows[number]))
                continue
            finding = rows.findings[number]
            found = shared.get(id(finding))
            if found is None:
                found = shared[id(finding)] = row_json(finding.row(""))
            others.append({**found, "test_id": rows.test_ids[number]})
        return passes, others


def _rest(finding: Finding) -> str:
    """What follows the test id in the line of a row without a freeze: one per finding."""
    return _ROW_ENCODER.encode(row_json(finding.row("")))[len(_ROW_START) + len('""') :]


def split_rows(
    rows: Iterable[report_types.RowJson],
) -> tuple[list[str], list[report_types.RowJson]]:
    """The ids of the stable passes, in order, and every other row, of a report's rows."""
    if isinstance(rows, ReportRows):
        return rows.split()
    passes: list[str] = []
    others: list[report_types.RowJson] = []
    for row in rows:
        if row["class"] == TestClass.STABLE_PASS:
            passes.append(row["test_id"])
        else:
            others.append(row)
    return passes, others


def _row_list(rows: ReportRows) -> Iterator[str]:
    if not rows:
        yield "[]"
        return
    lines = rows.lines()
    separator = "[\n    "
    while batch := list(islice(lines, _ROW_BATCH)):
        yield separator + ",\n    ".join(batch)
        separator = ",\n    "
    yield "\n  ]"


def json_chunks(document: Mapping[str, object]) -> Iterator[str]:
    """The report as JSON text, in chunks, with one row per line."""
    items = list(document.items())
    yield "{"
    for number, (key, value) in enumerate(items):
        yield f"{',' if number else ''}\n  {json.dumps(key)}: "
        if isinstance(value, ReportRows):
            yield from _row_list(value)
        else:
            yield _indented(value)
    yield "\n}\n"


def render_json(document: Mapping[str, object]) -> str:
    return "".join(json_chunks(document))
