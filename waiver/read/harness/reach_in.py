"""Code under test that newly reaches into the test runner: what the lock cannot close,
in the words every runner's scan reports it in.

The replays run the change's code in the runner's own process, so the gate reads the
change's source for what only a test harness needs to name. Each runner scans the source
it runs (Python's in `waiver.runners.pytest.python_reach`, JavaScript's and TypeScript's
in `waiver.runners.node.js_reach`) into a `Reading`, and a line counts as changed by its
tokens, not its layout (`new_names`). Each reach-in blocks the run until a reviewer has
read it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

SHOWN = 20  # reach-ins named in the blocker's text; all of them are in the report


@dataclass(frozen=True)
class ReachIn:
    path: str
    line: int
    what: str


@dataclass
class Reading:
    """A module as the scan reads it: each line's tokens, and what each span of lines
    names (first line, last line, what)."""

    lines: dict[int, tuple[str, ...]] = field(default_factory=dict)
    names: list[tuple[int, int, str]] = field(default_factory=list)


def new_lines(before: Reading | None, after: Reading) -> set[int]:
    """The lines of `after` whose tokens `before` does not have (as many times)."""
    left = Counter(before.lines.values()) if before is not None else Counter()
    found = set()
    for line, tokens in sorted(after.lines.items()):
        if left[tokens]:
            left[tokens] -= 1
        else:
            found.add(line)
    return found


def new_names(before: Reading | None, after: Reading) -> list[tuple[int, str]]:
    """What `after` names on the lines it adds or changes against `before`, each at the
    first such line of its span, in order."""
    added = new_lines(before, after)
    found = {
        (next(line for line in range(first, last + 1) if line in added), what)
        for first, last, what in after.names
        if any(line in added for line in range(first, last + 1))
    }
    return sorted(found)


def reach_in_blocker(reach_ins: list[ReachIn]) -> str:
    """The run blocker that names them, in plain words."""
    named = "; ".join(f"{r.path} line {r.line} {r.what}" for r in reach_ins[:SHOWN])
    more = f"; and {len(reach_ins) - SHOWN} more" if len(reach_ins) > SHOWN else ""
    return (
        "the change's code, or what its replays install, newly reaches into the test runner "
        "(names it, tells whether it runs under test, or replaces what assertions rely on), "
        "which can grade its own replays from inside them and which the lock cannot see: a "
        "reviewer must read "
        f"it ({named}{more}){property_note(reach_ins)}"
    )


def names_hypothesis(reach_ins: Sequence[ReachIn]) -> bool:
    """Whether a reach-in names Hypothesis, whose settings decide what a property runs."""
    return any("hypothesis" in reach.what.lower() for reach in reach_ins)


def property_note(reach_ins: Sequence[ReachIn]) -> str:
    """The words that tie reach-ins naming Hypothesis to the property suite."""
    if not names_hypothesis(reach_ins):
        return ""
    return "; the lines that name Hypothesis can weaken the property suite's run"
