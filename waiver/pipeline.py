"""`waiver gate`: read every input, decide, and write the report and the summary.

The order is the seed's: properties, fixtures and harness against the lock, then replays,
then the decision. The property report is read first because the modules it names are
part of the locked harness. A failed property means the freeze store is not even read.
"""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from itertools import filterfalse

from waiver.decide import check_policy, decide
from waiver.errors import InputError, UsageError
from waiver.model import Decision, FreezeRecord, Verdict
from waiver.read.committed import committed_json
from waiver.read.config import Flags, Settings, effective, read_config
from waiver.read.drift import Fixtures, LockPaths, read_fixtures
from waiver.read.evidence import build_cases, failed_property_cases
from waiver.read.freezes import MAX_STORE_BYTES, parse_freezes
from waiver.read.git import check_untracked
from waiver.read.properties import PropertyRun, check_property_age, read_properties
from waiver.read.protected import ProtectedFiles
from waiver.read.reach_in import new_reach_ins, reach_in_blocker, reach_ins_json
from waiver.read.registry import MAX_REGISTRY_BYTES, Registry, match_registry
from waiver.read.replay import Tally
from waiver.read.replays import (
    MAX_REPLAYS,
    PROPERTY_REPORT,
    ReplaySet,
    read_replays,
    report_and_log,
)
from waiver.read.skip import Skip, replays_not_needed, replays_were_skipped, skipped_blocker
from waiver.read.testid import TestIdRule
from waiver.write.atomic import write_atomic
from waiver.write.report import Context, Json, error_report_json, json_chunks, report_json
from waiver.write.summary import render_summary

NO_REGISTRY_BLOCKS = (
    "no known-tests registry: new and vanished tests are not detected "
    "(give --known-tests, or write `registry: none` in the policy file to go without on purpose)"
)


@dataclass(frozen=True)
class GateOptions:
    reports: str
    properties: str
    fixtures: str
    lock: str
    out: str
    root: str
    flags: Flags = field(default_factory=Flags)
    config: str | None = None
    summary: str | None = None
    # True when `summary` is the runner's job-summary file, the one file appended to.
    summary_appends: bool = False
    replays: int | None = None
    shards: int | None = None
    base_reports: str | None = None
    base_replays: int | None = None


def read_assertion_replays(
    options: GateOptions, settings: Settings, rule: TestIdRule, skip: Skip | None
) -> ReplaySet:
    """The replays; when they were skipped (see `replays_were_skipped`), an empty set.

    `waiver replay` runs no replay once a property fails or the lock drifts, and the
    reusable workflow runs no replay job, so the report names the cause instead of
    stopping at the missing replays.
    """
    if options.shards is not None and options.shards < 1:
        raise UsageError(f"--shards must be at least 1, got {options.shards}")
    if options.replays is not None and not 1 <= options.replays <= MAX_REPLAYS:
        raise UsageError(f"--replays must be between 1 and {MAX_REPLAYS}, got {options.replays}")
    others = report_and_log(options.reports, options.properties)
    try:
        return read_replays(
            options.reports,
            rule,
            settings.limits,
            options.replays,
            options.shards,
            others=others,
        )
    except InputError:
        if not replays_were_skipped(options.reports, skip, others):
            raise
        return ReplaySet(Tally(), 0, ())


def trusted_changes(options: GateOptions, settings: Settings, protected: ProtectedFiles) -> Json:
    """With a trusted revision: which protected files the change edits in its working tree.

    Only files that were read count (after a failed property the freeze store is not).
    """
    if protected.revision is None:
        return {}
    changes = protected.changes()
    named = [
        ("lock", options.lock),
        ("known-tests", settings.registry),
        ("freezes", settings.freezes),
        ("config", options.config),
    ]
    return {
        "working_tree_lock_differs": options.lock in changes,
        "protected_changes": [
            {"file": role, "path": path, "change": changes[path]}
            for role, path in named
            if path is not None and path in changes
        ],
    }


def read_base_replays(
    options: GateOptions, settings: Settings, rule: TestIdRule, skip: Skip | None
) -> ReplaySet | None:
    """The base revision's replays, read like the change's, with the same limits and errors.

    A folder that cannot be read as replays at all is an input error, as it is for the
    change; a single base replay that cannot be read leaves every row's base evidence short.
    When the replays were skipped, a folder that was skipped too is no input error, by the
    same rule as the change's replays.
    """
    if options.base_reports is None:
        return None
    try:
        return read_replays(
            options.base_reports,
            rule,
            settings.limits,
            options.base_replays,
            options.shards,
            # The property report and its log, as `waiver replay --properties-first` leaves them.
            others=report_and_log(
                options.base_reports, os.path.join(options.base_reports, PROPERTY_REPORT)
            ),
            folder="base reports",
        )
    except InputError:
        if not replays_were_skipped(options.base_reports, skip):
            raise
        return None


def replays_json(replays: ReplaySet, skip: Skip | None) -> Json | None:
    """What the report keeps of the replays; when none was read because they were
    skipped, which cause and why."""
    if replays.replay_count:
        return read_json(replays)
    if skip is None:
        return None
    return {
        "count": 0,
        "read": 0,
        "errors": [],
        "skipped": skip.test_class.value,
        "reason": skip.reason,
    }


def read_json(replays: ReplaySet) -> Json:
    return {
        "count": replays.replay_count,
        "read": len(replays.tally.replays),
        "errors": [
            {"replay": e.replay, "source": e.source, "problem": e.problem} for e in replays.errors
        ],
    }


@dataclass(frozen=True)
class Classified:
    """The decision and the little the report keeps of the replays that fed it."""

    decision: Decision
    replays: Json | None
    skipped: list[str]
    base: Json | None = None
    replays_skipped: Skip | None = None  # why no replay was read, when none was needed


def classify_replays(
    options: GateOptions,
    settings: Settings,
    protected: ProtectedFiles,
    rule: TestIdRule,
    fixtures: Fixtures,
    properties: PropertyRun,
    now: datetime,
) -> Classified:
    """Replays, registry and freeze store in, decision out.

    A function of its own so that the per-test tally is freed before the report is built:
    at 500,000 tests its index alone is some 40 MB.
    """
    failed_properties = properties.failed
    property_ok = not failed_properties
    skip = replays_not_needed(failed_properties, fixtures)
    replays = read_assertion_replays(options, settings, rule, skip)
    check_property_age(options.properties, properties, replays)
    base = read_base_replays(options, settings, rule, skip)
    registry = None
    if settings.registry is not None:
        registry = match_registry(
            protected.read(settings.registry, MAX_REGISTRY_BYTES),
            settings.registry,
            replays.tally.index,
        )
        # The registry lists property ids too: one that ran in the property report is
        # accounted for; one that was skipped or is gone stays vanished and blocks.
        vanished = tuple(filterfalse(properties.ran.__contains__, registry.vanished))
        registry = Registry(registry.expected, vanished)
    records: tuple[FreezeRecord, ...] = ()
    if property_ok and settings.freezes is not None:
        records = parse_freezes(protected.read(settings.freezes, MAX_STORE_BYTES), settings.freezes)
    skipped: list[str] = []
    cases = build_cases(replays, registry, property_ok, fixtures, skipped, base)
    if not cases and not property_ok:
        cases = failed_property_cases(failed_properties, fixtures)
    return Classified(
        decision=decide(cases, settings.policy, now, records),
        replays=replays_json(replays, skip),
        skipped=skipped,
        base=None if base is None else {"reports": options.base_reports, **read_json(base)},
        replays_skipped=None if replays.replay_count else skip,
    )


def _gate(
    options: GateOptions, settings: Settings, protected: ProtectedFiles, now: datetime
) -> Json:
    check_policy(settings.policy)
    rule = TestIdRule(options.root)
    check_untracked(options.root, (options.reports, options.base_reports, options.properties))
    properties = read_properties(options.properties, options.reports, settings.limits, rule)
    paths = LockPaths(options.root, options.fixtures, options.lock)
    fixtures = read_fixtures(paths, settings, protected, properties.modules)
    classified = classify_replays(options, settings, protected, rule, fixtures, properties, now)
    run_blockers = []
    decision = classified.decision
    if settings.registry is None and not settings.registry_none:
        run_blockers.append(NO_REGISTRY_BLOCKS)
    skip = classified.replays_skipped
    if skip is not None and (settings.registry is None or not decision.rows):
        run_blockers.append(skipped_blocker(skip))
    committed = protected.committed()
    reach_ins = [] if committed is None else new_reach_ins(committed)
    if reach_ins:
        run_blockers.append(reach_in_blocker(reach_ins))
    if run_blockers:
        decision = replace(decision, blocked=True, verdict=Verdict.BLOCKED)
    context = Context(
        fixtures={
            "lock": options.lock,
            "lock_source": protected.description,
            "lock_digest": fixtures.expected,
            "tree_digest": fixtures.current,
            "files": len(fixtures.lock),
            "drift": [
                {
                    "path": d.path,
                    "kind": d.kind,
                    "part": fixtures.locked_set.part(d.path),
                    **({"table": d.table} if d.table is not None else {}),
                }
                for d in fixtures.state.drift
            ],
            "bindings": [
                {
                    "tests": list(subset.binding.tests),
                    "fixtures": list(subset.binding.fixtures),
                    "files": len(subset.lock),
                    "lock_digest": subset.expected,
                    "tree_digest": subset.current,
                }
                for subset in fixtures.bound.subsets
            ],
            **trusted_changes(options, settings, protected),
            **(
                {}
                if protected.revision is None
                else {
                    "committed_changes": committed_json(
                        fixtures.committed, fixtures.locked_set.part
                    ),
                    "runner_reach": reach_ins_json(reach_ins),
                }
            ),
        },
        properties={
            "report": options.properties,
            "cases": len(properties.ran),
            "failed": properties.failed,
            "skipped": properties.skipped,
        },
        replays=classified.replays,
        registry={"used": settings.registry is not None, "path": settings.registry},
        skipped=classified.skipped,
        trusted_revision=protected.revision,
        run_blockers=run_blockers,
        base=classified.base,
    )
    return report_json(decision, settings, context, now)


def error_json(
    error: InputError | UsageError, settings: Settings, now: datetime, trusted: str | None
) -> Json:
    """The blocked report of a run that `error` ended, with the trusted revision as given."""
    if isinstance(error, InputError):
        return error_report_json(error.source, error.problem, settings, now, trusted)
    return error_report_json("usage", str(error), settings, now, trusted)


def flag_settings(options: GateOptions) -> Settings:
    """The settings before the policy file is read: the flags and the defaults."""
    return effective(None, options.flags, options.root)


@contextlib.contextmanager
def _report_on_failure(
    options: GateOptions, settings: Settings, protected: ProtectedFiles, now: datetime
) -> Iterator[None]:
    """Whatever ends the run early, leave a blocked report, never a stale green one."""
    try:
        yield
    except (InputError, UsageError) as error:
        # The error being raised is the one to tell; a report that cannot be written on
        # top of it leaves no report at all, which a consumer reads as blocked.
        with contextlib.suppress(InputError):
            write_report(
                options.out,
                options.summary,
                error_json(error, settings, now, protected.given),
                summary_appends=options.summary_appends,
            )
        raise


def write_report(
    out: str, summary: str | None, document: Json, *, summary_appends: bool = False
) -> None:
    """The Markdown summary, then waiver.json atomically.

    The summary is written first so that one that cannot be written leaves no report
    behind. A `summary` file is replaced, so a second run does not double it, unless it
    is the runner's step summary (`summary_appends`), which other steps share.
    """
    if summary is not None:
        text = render_summary(document)
        try:
            if summary_appends:
                with open(summary, "a", encoding="utf-8") as stream:
                    stream.write(text)
            else:
                write_atomic(summary, text)
        except OSError as error:
            raise InputError(summary, f"cannot write the summary: {error.strerror}") from None
    try:
        write_atomic(out, json_chunks(document))
    except OSError as error:
        raise InputError(out, f"cannot write the report: {error.strerror}") from None


def remove_report(out: str) -> None:
    """Remove an earlier report at `out`, so no exit but 0 or 1 leaves one that is green."""
    if os.path.isdir(out) and not os.path.islink(out):
        raise UsageError(f"--out {out} is a folder; give the path of waiver.json")
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        os.unlink(out)


def check_output_paths(out: str, summary: str | None) -> None:
    """Both output files must have a folder to go in, checked before anything is written."""
    for flag, path in (("--out", out), ("--summary", summary)):
        if path is None:
            continue
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise UsageError(f"{flag} {path}: the folder {folder} does not exist")
    if summary is not None and os.path.isdir(summary):
        raise UsageError(f"--summary {summary} is a folder; give a file path")


def read_settings(options: GateOptions, protected: ProtectedFiles) -> Settings:
    """The effective policy: the policy file (read like the lock) under the flags."""
    policy_file = None if options.config is None else read_config(protected, options.config)
    return effective(policy_file, options.flags, options.root)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while the gate builds its per-test objects.

    Every test leaves long-lived rows and dicts behind, so the collector's full passes
    rescan a heap that only grows: a fifth of a 500,000-test run. The gate makes no
    reference cycles worth collecting before it exits.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def run_gate(options: GateOptions, protected: ProtectedFiles, now: datetime) -> Json:
    remove_report(options.out)
    check_output_paths(options.out, options.summary)
    # Until the policy file is read, an error report can only show the flags and defaults.
    with _report_on_failure(options, flag_settings(options), protected, now):
        settings = read_settings(options, protected)
    with _report_on_failure(options, settings, protected, now), _collector_paused():
        document = _gate(options, settings, protected, now)
        write_report(
            options.out, options.summary, document, summary_appends=options.summary_appends
        )
    return document
