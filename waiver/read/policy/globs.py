"""The policy's path globs (`harness:`, `fixtures:`, a binding's `fixtures`, `--pattern`), read
as a `.gitignore` reads a leading slash.

A glob written `/package.json` or `./package.json` is anchored: it names the path from the
start of what it is matched against, never a name at any depth. Without the anchor the glob
means what it always meant (see each kind of glob). What is left once the anchor is taken
off must be a relative path that stays inside the repository: a glob of `/`, `./..` or
`//etc/passwd` could name nothing, or something outside, so it is refused with its key.
"""

from __future__ import annotations

from waiver.errors import InputError
from waiver.read.untrusted.files import split_relative

ANCHORS = ("./", "/")


def unanchored(pattern: str) -> tuple[str, bool]:
    """The glob without the anchor that roots it, and whether it had one."""
    for anchor in ANCHORS:
        if pattern.startswith(anchor):
            return pattern[len(anchor) :], True
    return pattern, False


def path_glob(pattern: str) -> str:
    """The glob as it is matched against a relative path: without its anchor."""
    return unanchored(pattern)[0]


def check_glob(pattern: str, source: str, key: str | None = None) -> None:
    """The glob is a relative path below the root once its anchor is taken off; `key` is
    where a policy file holds it (`harness[0]`)."""
    rest, _ = unanchored(pattern)
    where = "" if key is None else f"{key}: "
    if not rest:
        raise InputError(source, f"{where}{pattern!r} names no file")
    try:
        split_relative(rest, source)
    except InputError as error:
        raise InputError(
            source,
            f"{where}{pattern!r} is not a glob of files inside the repository ({error.problem})",
        ) from None
