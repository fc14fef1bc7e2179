"""What the gate tells the report of the fixtures, the harness and the trusted revision: the
lock and the drift against it, the protected files the change edits, and what its commit adds
to the source's reach into the runner. `waiver.write.report.report_sections` gives it its shape."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from waiver.gate.options import GateOptions
from waiver.model import Admission
from waiver.read.harness.reach_in import ReachIn
from waiver.read.lock.drift import Fixtures
from waiver.read.policy.settings import Settings
from waiver.read.trusted.protected import ProtectedFiles
from waiver.write.report.report_sections import FixtureFacts, ProtectedChange, TrustedFacts


def fixture_facts(
    options: GateOptions,
    settings: Settings,
    protected: ProtectedFiles,
    fixtures: Fixtures,
    reach_ins: Sequence[ReachIn],
    reach_admitted: Admission | None = None,
) -> FixtureFacts:
    """`reach_admitted` is the approval that admitted the reach-ins, if one did."""
    trusted = None
    if protected.revision is not None:
        trusted = TrustedFacts(
            lock_differs=options.lock in protected.changes(),
            protected_changes=protected_changes(options, settings, protected),
            reach_ins=tuple(reach_ins),
            reach_admitted=reach_admitted,
        )
    return FixtureFacts(options.lock, protected.description, fixtures, trusted)


def protected_changes(
    options: GateOptions, settings: Settings, protected: ProtectedFiles
) -> tuple[ProtectedChange, ...]:
    """Which protected files the change edits in its working tree.

    Only files that were read count (after a failed property the freeze store is not).
    """
    changes = protected.changes()
    named: list[tuple[Literal["lock", "known-tests", "freezes", "config"], str | None]] = [
        ("lock", options.lock),
        ("known-tests", settings.registry),
        ("freezes", settings.freezes),
        ("config", options.config),
    ]
    return tuple(
        ProtectedChange(role, path, changes[path])
        for role, path in named
        if path is not None and path in changes
    )
