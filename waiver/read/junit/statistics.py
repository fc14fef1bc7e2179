"""What a property report says of each property's own run: Hypothesis's statistics.

Hypothesis's pytest plugin writes each property's statistics into the JUnit file pytest
writes, as a suite property `hypothesis-statistics-<node id>` whose value is the base64 of
the text `--hypothesis-show-statistics` prints. Two things of that text are read: how many
cases the generate phase ran, and why the run stopped. A property is named when they show
it generated no case, or at most one because its settings allowed no more
(`Stopped because settings.max_examples=1`): such a run checks what one example test
checks, and a property suite that cannot fail protects nothing.

The statistics are the run's word about itself. They can only name a property, never clear
one: a run that weakens itself can leave them out as easily (and a report that pytest-xdist
wrote, or another runner, holds none).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable
from dataclasses import dataclass
from xml.parsers import expat

from waiver.errors import InputError
from waiver.read.junit.stream import RefusedReport, expat_input, hardened_parser
from waiver.read.untrusted.files import open_regular, read_chunks

STATISTICS = "hypothesis-statistics-"
GENERATED = re.compile(
    r"- during generate phase .*?- (\d+) passing, (\d+) failing, and (\d+) invalid", re.DOTALL
)
STOPPED = re.compile(r"- Stopped because ([^\n]{1,200})")
CAPPED = "settings.max_examples="
MAX_STATISTICS_CHARS = 1 << 16  # one property's text; longer is not Hypothesis's


@dataclass(frozen=True)
class FewCases:
    """A property whose run generated `generated` cases, and why it stopped."""

    test_id: str
    generated: int
    stopped_because: str


def _statistics(chunks: Iterable[bytes], source: str) -> dict[str, str]:
    """Each node id's statistics text, from the report's suite properties."""
    found: dict[str, str] = {}

    def start(tag: str, attrs: dict[str, str]) -> None:
        name = attrs.get("name", "")
        if tag == "property" and name.startswith(STATISTICS):
            value = attrs.get("value", "")[: MAX_STATISTICS_CHARS * 2]
            try:
                text = base64.b64decode(value, validate=True).decode("utf-8")
            except (binascii.Error, ValueError):
                return  # not Hypothesis's: it names nothing
            found[name.removeprefix(STATISTICS)] = text

    encoding, body = expat_input(chunks, source)
    parser = hardened_parser(encoding)
    parser.StartElementHandler = start
    try:
        for chunk in body:
            parser.Parse(chunk, False)
        parser.Parse(b"", True)
    except (expat.ExpatError, RefusedReport, RecursionError):
        # The reader of the cases refused this report already; nothing more to name.
        return {}
    return found


def few_cases(text: str, test_id: str) -> FewCases | None:
    """The property, when its statistics show it generated no case, or one by its settings."""
    stopped = STOPPED.search(text)
    because = "" if stopped is None else stopped[1].strip()
    generated = GENERATED.search(text)
    count = 0 if generated is None else sum(int(group) for group in generated.groups())
    if count == 0 or (count == 1 and because.startswith(CAPPED)):
        return FewCases(test_id, count, because)
    return None


def properties_with_few_cases(path: str, ran: frozenset[str], limit: int) -> list[FewCases]:
    """The properties of the report at `path` that ran (`ran`) and generated too few cases
    to be a property, by their own statistics."""
    try:
        statistics = _statistics(read_chunks(open_regular(path, path), limit, path), path)
    except InputError:
        return []  # the property report was read already; it names nothing more
    found = (few_cases(text, test_id) for test_id, text in sorted(statistics.items()))
    return [few for few in found if few is not None and few.test_id in ran]
