"""What a verdict cost, in one line a reader takes in: the jobs, their runner time by kind,
the minutes GitHub bills, and how many plain runs of the suite that is. The summary and
the comment both show it; only numbers and the fixed names of the kinds go into it."""

from __future__ import annotations

from waiver.decide.cost import KINDS
from waiver.write.report.report_types import CostJson


def duration(seconds: float) -> str:
    """`42 s`, `3 min 5 s`, `2 h 1 min`."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    minutes, rest = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {rest} s" if rest else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def bill_line(cost: CostJson) -> str:
    total = sum(cost["seconds"].values())
    spent = cost["seconds"]
    kinds = ", ".join(f"{kind} {duration(spent[kind])}" for kind in KINDS if kind in spent)
    line = (
        f"**What this verdict cost:** {cost['jobs']} jobs, {duration(total)} of runner time "
        f"(GitHub bills {cost['billed_minutes']} min)" + (f": {kinds}." if kinds else ".")
    )
    plain = cost["plain_run"]
    if plain:
        line += (
            f" One plain run of the suite took {duration(plain)}: the verdict cost "
            f"{total / plain:.0f} of them."
        )
    return line
