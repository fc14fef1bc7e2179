"""Why each harness file of a lock is in it, as `waiver lock` and `waiver init` print it: one
line a file whose name does not say it already (a conftest, a runner's configuration, the
property suite say it), with the tables locked of it, so that a reader sees at once
whether a file of the library is locked, and which configuration named it."""

from __future__ import annotations

from collections.abc import Mapping

from waiver.read.harness.named import Pair, Why

# Lines shown; the rest are counted, and the lock lists them all.
MAX_SHOWN = 20


def reason_lines(harness: Mapping[Pair, Why]) -> list[str]:
    """`path (tables): why` for each harness file whose name does not say why, in the
    lock's order, at most MAX_SHOWN, the last counting those left out."""
    tables: dict[str, list[str]] = {}
    reasons: dict[str, str] = {}
    for (path, table), why in sorted(
        harness.items(), key=lambda item: (item[0][0], item[0][1] or "")
    ):
        if why.obvious:
            continue
        reasons.setdefault(path, why.text)
        if table is not None:
            tables.setdefault(path, []).append(table)
    lines = [
        f"{path} ({', '.join(tables[path])}): {why}" if path in tables else f"{path}: {why}"
        for path, why in reasons.items()
    ]
    if len(lines) > MAX_SHOWN:
        lines[MAX_SHOWN - 1 :] = [f"… and {len(lines) - MAX_SHOWN + 1} more, listed in the lock"]
    return lines
