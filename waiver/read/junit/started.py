"""When a report's run started, from the `timestamp` attributes its suites carry.

Only a time with a zone counts: pytest has written one since version 8, and a time
without a zone cannot be compared with a report written on another machine.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass
class Started:
    """The earliest zone-aware suite `timestamp` noted so far, if any."""

    earliest: datetime | None = None

    def note(self, text: str) -> None:
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            return  # a producer's own format says nothing the gate can compare
        if moment.utcoffset() is None:
            return
        if self.earliest is None or moment < self.earliest:
            self.earliest = moment
