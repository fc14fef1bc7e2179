"""`waiver gate`: read every input, decide, and write the report and the summary.

The order is the seed's: properties, fixtures and harness against the lock, then replays,
then the decision. The property report is read first because the modules it names are
part of the locked harness. A failed property means the freeze store is not even read.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import partial
from itertools import compress, filterfalse

from waiver.decide.decision import check_policy, decide
from waiver.errors import InputError, UsageError
from waiver.gate.change_test_replays import ChangeTests, read_change_tests
from waiver.gate.context import fixture_facts
from waiver.gate.edited_tests import EditedAhead, EditedFacts, edited_ahead
from waiver.gate.evidence import BaseStates, build_cases, failed_property_cases, replayed_base
from waiver.gate.history_evidence import GateHistory, history_base, history_evidence, load_history
from waiver.gate.options import GateOptions
from waiver.gate.provenance_check import judge_provenance
from waiver.gate.red_green_evidence import annotate, read_evidence, with_red_green
from waiver.gate.replay_inputs import (
    read_assertion_replays,
    read_base_replays,
    read_facts,
    replay_facts,
)
from waiver.gate.review import change_lists, read_review, review_facts
from waiver.gate.skip import Skip, replays_not_needed, skipped_blocker
from waiver.gate.weakened import read_weakened
from waiver.model import Admission, Decision, FreezeRecord, Verdict
from waiver.read.definitions.edit_kinds import EditFinding
from waiver.read.evidence.provenance_data import read_provenance
from waiver.read.harness.reach_in import reach_in_blocker
from waiver.read.junit.properties import PropertyRun, check_property_age, read_properties
from waiver.read.junit.replay_set import ReplaySet
from waiver.read.junit.testid import TestIdRule
from waiver.read.lock.drift import Fixtures, LockPaths, read_fixtures
from waiver.read.policy.policy_file import read_settings
from waiver.read.policy.settings import Settings, effective
from waiver.read.stores.freeze_store import MAX_STORE_BYTES, parse_freezes
from waiver.read.stores.registry import MAX_REGISTRY_BYTES, Registry, match_registry
from waiver.read.trusted.git import check_untracked
from waiver.read.trusted.protected import ProtectedFiles
from waiver.runners import policy_harness, runner_named
from waiver.write.report.report import Context, Json, error_report_json, report_json
from waiver.write.report.report_files import check_output_paths, remove_report, write_report
from waiver.write.report.report_sections import (
    BaseReplays,
    RegistryFacts,
    ReplayFacts,
    cost_json,
    fixtures_json,
    properties_json,
    registry_json,
    replays_json,
)
from waiver.write.words.terminal import render_terminal

NO_REGISTRY_BLOCKS = (
    "no known-tests registry: new and vanished tests are not detected "
    "(give --known-tests, or write `registry: none` in the policy file to go without on purpose)"
)


@dataclass(frozen=True)
class Classified:
    """The decision and the little the report keeps of the replays that fed it."""

    decision: Decision
    replays: ReplayFacts | None
    skipped: list[str]
    base: BaseReplays | None = None
    replays_skipped: Skip | None = None  # why no replay was read, when none was needed
    # Registered tests the change edited, with what changed; only with a trusted revision.
    edited: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # The named kinds of each edit (`waiver.runners.pytest.findings`).
    findings: dict[str, tuple[EditFinding, ...]] = field(default_factory=dict)
    # The diff of each edited Python test's definition (`waiver.runners.pytest.diff`).
    diffs: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # The change's own tests, when they ran apart (`waiver.gate.change_test_replays`).
    change: ChangeTests | None = None


def classify_replays(
    options: GateOptions,
    settings: Settings,
    protected: ProtectedFiles,
    rule: TestIdRule,
    fixtures: Fixtures,
    properties: PropertyRun,
    approval: Admission | None,
    now: datetime,
    history: GateHistory | None = None,
) -> Classified:
    """Replays, registry and freeze store in, decision out. Without base replays, the
    history's run of the trusted base commit, if it holds one, is the base evidence.

    A function of its own so that the per-test tally is freed before the report is built:
    at 500,000 tests its index alone is some 40 MB.
    """
    failed_properties = properties.failed
    property_ok = not failed_properties
    skip = replays_not_needed(failed_properties, fixtures)
    committed = protected.committed()
    runner = runner_named(settings.policy.runner)
    compared = None if skip is not None else committed
    # The edited tests are compared in a forked process while the replays are read.
    with edited_ahead(runner, compared, protected, settings.registry) as ahead:
        replays = read_assertion_replays(options, settings, rule, skip)
        check_property_age(options.properties, properties, replays)
        base = read_base_replays(options, settings, rule, skip)
        change = None
        if skip is None:
            change = read_change_tests(options.change_tests, settings, rule, options.replays)
        registry, registered_properties = _registry(settings, protected, replays, properties)
        records: tuple[FreezeRecord, ...] = ()
        if property_ok and settings.freezes is not None:
            records = parse_freezes(
                protected.read(settings.freezes, MAX_STORE_BYTES), settings.freezes
            )
        edits = EditedFacts({}, {}, {})
        if registry is not None and ahead is not None:
            edits, registry = _edits(ahead, registry, registered_properties, replays, change)
    skipped: list[str] = []
    base_states, base_facts = _base_evidence(options, base, history, protected.revision, skip)
    cases = build_cases(
        replays,
        registry,
        property_ok,
        fixtures,
        skipped,
        base_states,
        frozenset(edits.edited),
        change,
    )
    if not cases and not property_ok:
        cases = failed_property_cases(failed_properties, fixtures)
    red_green = read_evidence(options.red_green, protected)
    review = with_red_green(
        review_facts(approval, options, settings, protected, fixtures), red_green, settings.policy
    )
    messages = {**properties.messages, **replays.tally.first_messages()}
    decision = decide(cases, settings.policy, now, records, review, messages)
    return Classified(
        decision=annotate(decision, red_green, settings.policy),
        replays=replay_facts(replays, skip, runner, options.root),
        skipped=skipped,
        base=base_facts,
        replays_skipped=None if replays.replay_count else skip,
        edited=edits.edited,
        findings=edits.findings,
        diffs=edits.diffs,
        change=change,
    )


def _registry(
    settings: Settings, protected: ProtectedFiles, replays: ReplaySet, properties: PropertyRun
) -> tuple[Registry | None, tuple[str, ...]]:
    """The registry matched against the replays, and the registered ids the property
    report ran."""
    if settings.registry is None:
        return None, ()
    registry = match_registry(
        protected.read(settings.registry, MAX_REGISTRY_BYTES),
        settings.registry,
        replays.tally.index,
    )
    # The registry lists property ids too: one that ran in the property report is
    # accounted for; one that was skipped or is gone stays vanished and blocks.
    registered_properties = tuple(filter(properties.ran.__contains__, registry.vanished))
    vanished = tuple(filterfalse(properties.ran.__contains__, registry.vanished))
    return Registry(registry.expected, vanished), registered_properties


def _edits(
    ahead: EditedAhead,
    registry: Registry,
    registered_properties: tuple[str, ...],
    replays: ReplaySet,
    change: ChangeTests | None,
) -> tuple[EditedFacts, Registry]:
    """The edited tests among the registered ones, and the registry with each registered
    property test the change edited listed as vanished."""
    listed = [*compress(replays.tally.ids, registry.expected), *registered_properties]
    if change is not None:
        # The base's version of a test may not even load on the change's code, and
        # so vanish from the verdict replays: whether the change edited it decides.
        listed += registry.vanished
    edits = ahead.facts(listed)
    # A registered property test the change edited proves nothing by passing,
    # wherever it lives (a selected suite's modules are not locked): a row of its
    # own, for review.
    edited_properties = tuple(filter(edits.edited.__contains__, registered_properties))
    return edits, Registry(registry.expected, registry.vanished + edited_properties)


def _base_evidence(
    options: GateOptions,
    base: ReplaySet | None,
    history: GateHistory | None,
    trusted: str | None,
    skip: Skip | None,
) -> tuple[BaseStates | None, BaseReplays | None]:
    """Each row's base evidence and what the report says of it: the base replays given,
    else the history's run of the trusted base commit, else none."""
    if base is not None:
        facts = (
            None
            if options.base_reports is None
            else BaseReplays(options.base_reports, read_facts(base))
        )
        return replayed_base(base), facts
    found = (
        None
        if history is None or trusted is None or skip is not None
        else history_base(history, trusted)
    )
    if history is None or found is None:
        return None, None
    states, run = found
    replays = run.replays or 0
    return states, BaseReplays(history.path, ReplayFacts(replays, replays, ()), run)


def _untrusted_reports(
    settings: Settings, protected: ProtectedFiles, context: Context, now: datetime
) -> Json:
    """The report of reports that no run of the base's gate workflow produced: blocked, with
    why, and not one of them read (their contents are the change's to choose)."""
    decision = replace(decide((), settings.policy, now), blocked=True, verdict=Verdict.BLOCKED)
    return report_json(
        decision, settings, replace(context, trusted_revision=protected.revision), now
    )


def _registry_facts(
    options: GateOptions,
    settings: Settings,
    protected: ProtectedFiles,
    decision: Decision,
    classified: Classified,
) -> RegistryFacts:
    committed = protected.committed()
    if committed is None:  # no trusted revision
        return RegistryFacts(settings.registry)
    return RegistryFacts(
        settings.registry,
        classified.edited,
        classified.findings,
        classified.diffs,
        change_lists(committed, settings.registry, options.root, decision.rows),
    )


def _check_tracked(options: GateOptions) -> None:
    """No report the gate reads is a file the change's commit tracks."""
    check_untracked(
        options.root,
        (
            options.reports,
            options.base_reports,
            options.properties,
            options.change_tests,
            *options.red_green,
        ),
    )


def _gate(
    options: GateOptions, settings: Settings, protected: ProtectedFiles, now: datetime
) -> Json:
    check_policy(settings.policy)
    approval, approvals = read_review(options, settings, protected, options.environment)
    judged, provenance, cost = None, None, None
    if options.provenance is not None:
        run = read_provenance(options.provenance)
        judged = judge_provenance(run, protected.committed())
        cost = None if run.cost is None else cost_json(run.cost)
        blocker = judged.blocker(approval)
        provenance = judged.json(approval if blocker is None else None)
        if blocker is not None:
            early = Context(
                run_blockers=[blocker], approvals=approvals, provenance=provenance, cost=cost
            )
            return _untrusted_reports(settings, protected, early, now)
    rule = runner_named(settings.policy.runner).test_ids(options.root)
    _check_tracked(options)
    properties = read_properties(options.properties, options.reports, settings.limits, rule)
    paths = LockPaths(options.root, options.fixtures, options.lock)
    modules = settings.locked_property_modules(properties.modules)
    fixtures = read_fixtures(paths, settings, protected, modules, policy_harness)
    history = None if options.history is None else load_history(options.history)
    classified = classify_replays(
        options, settings, protected, rule, fixtures, properties, approval, now, history
    )
    decision = classified.decision
    run_blockers = []
    if settings.registry is None and not settings.registry_none:
        run_blockers.append(NO_REGISTRY_BLOCKS)
    skip = classified.replays_skipped
    if skip is not None and (settings.registry is None or not decision.rows):
        run_blockers.append(skipped_blocker(skip))
    committed = protected.committed()
    reach_ins = (
        [] if committed is None else runner_named(settings.policy.runner).reach_ins(committed)
    )
    # A reach-in waits for a reviewer to read it: a counted approval of the head admits it.
    reach_admitted = approval if reach_ins else None
    if reach_ins and approval is None:
        run_blockers.append(reach_in_blocker(reach_ins))
    weakened = None
    if committed is not None:
        limit = settings.limits.max_report_bytes
        weakened = read_weakened(committed, options.properties, properties, limit)
        run_blockers.extend(filter(None, [weakened.blocker()]))
    admitted_update = judged is not None and judged.problem is not None
    if run_blockers:
        decision = replace(decision, blocked=True, verdict=Verdict.BLOCKED)
    elif (admitted_update or reach_admitted is not None) and decision.verdict is Verdict.CLEAN:
        # What an approval admitted is a person's call, never `clean`.
        decision = replace(decision, verdict=Verdict.REVIEW)
    history_used = None
    if history is not None:
        decision, history_used = history_evidence(history, decision)
    context = Context(
        fixtures=fixtures_json(
            fixture_facts(options, settings, protected, fixtures, reach_ins, reach_admitted)
        ),
        properties=properties_json(
            options.properties,
            properties,
            None if weakened is None else (weakened.settings_changes, weakened.few_cases),
        ),
        replays=None if classified.replays is None else replays_json(classified.replays),
        registry=registry_json(_registry_facts(options, settings, protected, decision, classified)),
        skipped=classified.skipped,
        trusted_revision=protected.revision,
        run_blockers=run_blockers,
        base=classified.base,
        approvals=approvals,
        provenance=provenance,
        history=history_used,
        cost=cost,
        change_tests=None if classified.change is None else classified.change.json(),
    )
    return report_json(decision, settings, context, now)


@dataclass(frozen=True)
class Gated:
    """A gate run's report, and the error that ended it early, if one did: then the report
    is the blocked one that carries the error, and the command still fails with it."""

    document: Json
    error: InputError | UsageError | None = None
    # The terminal's table of the report, when `GateOptions.terminal` asked for it.
    terminal: str | None = None


def _failed(
    options: GateOptions,
    settings: Settings,
    protected: ProtectedFiles,
    error: InputError | UsageError,
    now: datetime,
) -> Gated:
    """Whatever ends the run early leaves a blocked report, never a stale green one."""
    document = error_report_json(error, settings, now, protected.given)
    # The error that ended the run is the one to tell; a report that cannot be written on
    # top of it leaves no report at all, which a consumer reads as blocked.
    with contextlib.suppress(InputError):
        write_report(
            options.out, options.summary, document, summary_appends=options.summary_appends
        )
    return Gated(document, error)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
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


def run_gate(options: GateOptions, protected: ProtectedFiles, now: datetime) -> Gated:
    """The one place where an error of the run becomes a report: the caller publishes the
    document either way, and `waiver.cli` turns the error into the exit code."""
    try:
        remove_report(options.out)
        check_output_paths(options.out, options.summary)
    except (InputError, UsageError) as error:  # no path to write a report to
        defaults = effective(None, options.flags, options.root)
        return Gated(error_report_json(error, defaults, now, protected.given), error)
    # Until the policy file is read, an error report can only show the flags and defaults.
    settings = effective(None, options.flags, options.root)
    try:
        settings = read_settings(protected, options.config, options.flags, options.root)
        with collector_paused():
            document = _gate(options, settings, protected, now)
            terminal = write_report(
                options.out,
                options.summary,
                document,
                summary_appends=options.summary_appends,
                meanwhile=partial(render_terminal, document) if options.terminal else None,
            )
    except (InputError, UsageError) as error:
        return _failed(options, settings, protected, error, now)
    return Gated(document, terminal=terminal)
