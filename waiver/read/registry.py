"""The known-tests registry: one test id a line; blank lines and `#` comments are ignored."""

from __future__ import annotations

from collections.abc import Iterable

from waiver.errors import InputError

MAX_REGISTRY_BYTES = 64 << 20


def parse_registry(data: bytes, source: str) -> frozenset[str]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(source, f"not UTF-8 ({error.reason} at byte {error.start})") from None
    ids = set()
    for line in text.split("\n"):
        test_id = line.removesuffix("\r")
        if test_id.strip() and not test_id.startswith("#"):
            ids.add(test_id)
    return frozenset(ids)


def format_registry(test_ids: Iterable[str]) -> str:
    """Registry text; ids that cannot stand on one line are refused rather than mangled."""
    lines = []
    for test_id in sorted(set(test_ids)):
        if "\n" in test_id or "\r" in test_id or test_id.startswith("#") or not test_id.strip():
            raise InputError(test_id[:80], "this test id cannot be written as a registry line")
        lines.append(test_id + "\n")
    return "".join(lines)
