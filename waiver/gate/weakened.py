"""Whether the property suite may have run weakened: a settings change in the change's
commit (`waiver.runners.pytest.property_settings`), or properties whose own statistics show
they generated too few cases (`waiver.read.junit.statistics`).

Either blocks the run, and no approval admits it: a property suite that cannot fail
protects nothing (the seed's rule for a report of zero cases), and a reviewer's reading
cannot give back the cases that were not run. Settings the project wants belong in the
locked harness, changed in a change of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from waiver.read.harness.reach_in import ReachIn
from waiver.read.junit.properties import PropertyRun
from waiver.read.junit.statistics import FewCases, properties_with_few_cases
from waiver.read.trusted.protected import Committed
from waiver.runners.pytest.property_settings import settings_changes

SHOWN = 10  # places named in the blocker's text; all of them are in the report


@dataclass(frozen=True)
class Weakened:
    settings_changes: list[ReachIn]
    few_cases: list[FewCases]

    def blocker(self) -> str | None:
        """The run blocker that names them, in plain words; None when there are none."""
        named = [f"{c.path} line {c.line} {c.what}" for c in self.settings_changes] + [
            f"{f.test_id} generated {f.generated} case(s)"
            + (f", stopped because {f.stopped_because}" if f.stopped_because else "")
            for f in self.few_cases
        ]
        if not named:
            return None
        more = f"; and {len(named) - SHOWN} more" if len(named) > SHOWN else ""
        return (
            "the property suite may have run weakened, and a property suite that cannot fail "
            f"protects nothing ({'; '.join(named[:SHOWN])}{more}); no approval admits it: the "
            "property suite's settings belong in the locked harness, changed in a change of "
            "its own"
        )


def read_weakened(
    committed: Committed, properties_report: str, properties: PropertyRun, limit: int
) -> Weakened:
    """What may have weakened the property suite's run; `limit`, the report's size cap."""
    return Weakened(
        settings_changes(committed),
        properties_with_few_cases(properties_report, properties.ran, limit),
    )
