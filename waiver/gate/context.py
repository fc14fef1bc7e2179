"""What the report says of the fixtures, the harness and the trusted revision: the lock's
digests and drift, the bindings, the protected files the change edits, and what its commit
adds to the harness or to the source's reach into the runner."""

from __future__ import annotations

from collections.abc import Sequence

from waiver.gate.options import GateOptions
from waiver.model import Admission
from waiver.read.harness.reach_in import ReachIn, reach_ins_json
from waiver.read.lock.committed import committed_json
from waiver.read.lock.drift import Fixtures
from waiver.read.policy.settings import Settings
from waiver.read.trusted.protected import ProtectedFiles
from waiver.write.report import Json, admission_json


def fixtures_json(
    options: GateOptions,
    settings: Settings,
    protected: ProtectedFiles,
    fixtures: Fixtures,
    reach_ins: Sequence[ReachIn],
    reach_admitted: Admission | None = None,
) -> Json:
    """The report's `fixtures` object; `reach_admitted` is the approval that admitted the
    reach-ins, if one did."""
    return {
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
                "committed_changes": committed_json(fixtures.committed, fixtures.locked_set.part),
                "runner_reach": reach_ins_json(reach_ins),
                "runner_reach_admitted_by": None
                if reach_admitted is None
                else admission_json(reach_admitted),
            }
        ),
    }


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
