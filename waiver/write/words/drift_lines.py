"""The outcome of a lock check as lines for a log: one per drifted file.

Paths come from the change's tree, so each line is spelled out as the terminal writer
spells untrusted text: one line each, able to start no workflow command.
"""

from __future__ import annotations

from waiver.read.lock.drift import Fixtures
from waiver.write.words.escape import log_line
from waiver.write.words.why import locked_name


def drift_lines(fixtures: Fixtures) -> list[str]:
    """`<path>: <kind> (<part>)` for every drifted file, in the lock check's order."""
    part = fixtures.locked_set.part
    return [
        log_line(f"  {locked_name(d.path, d.table)}: {d.kind} ({part(d.path)})")
        for d in fixtures.state.drift
    ]


def render_lock_check(fixtures: Fixtures, source: str) -> str:
    """What `waiver check-lock` prints: the verdict of the check, then the drifted files."""
    files = len(fixtures.lock)
    if not fixtures.drifted:
        head = f"waiver: no drift: the fixtures and the test harness match the lock ({files} files, {source})"
        return log_line(head) + "\n"
    drift = fixtures.state.drift
    head = (
        f"waiver: drift: {len(drift)} {'file differs' if len(drift) == 1 else 'files differ'} "
        f"from the lock ({source}):"
    )
    return "".join(line + "\n" for line in [log_line(head), *drift_lines(fixtures)])
