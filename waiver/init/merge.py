"""An existing policy file, kept and completed: `waiver init` adds to it what its own policy
says and the file does not, and never changes what the file says.

A key the file lacks is appended with the comment init writes above it; `--harness` globs
the file's block list lacks are added to it. A file that does not parse, or that holds
`harness:` in a form other than a block list under a plain `harness:` line while globs are
to be added, is a problem to settle by hand.
"""

from __future__ import annotations

import re
from typing import Any, cast

from waiver.errors import InputError
from waiver.read.policy.policy_file import parse_policy
from waiver.read.policy.strict_yaml import load_yaml

HARNESS = "harness"
# The keys init adds to a file without them; the others it writes are the defaults.
MERGED = ("registry", "runner", "fixtures", HARNESS, "package_scripts", "property_suite")
TOP_KEY = re.compile(r"([A-Za-z_][\w-]*)\s*:")


def _blocks(rendered: str) -> dict[str, str]:
    """Each key of init's policy text with its block: the comment above it and its lines."""
    blocks = {}
    for block in rendered.split("\n\n"):
        for line in block.splitlines():
            match = TOP_KEY.match(line)
            if match is not None:
                blocks[match[1]] = block.rstrip("\n")
                break
    return blocks


def _add_globs(text: str, globs: list[str], source: str) -> str:
    """`text` with `globs` added to the end of its top-level `harness:` block list."""
    lines = text.splitlines()
    keys = ((n, TOP_KEY.match(line)) for n, line in enumerate(lines))
    start = next((n for n, match in keys if match is not None and match[1] == HARNESS), None)
    if start is None or lines[start].split(":", 1)[1].strip():
        raise InputError(
            source,
            "init adds globs only to a block list under a plain `harness:` line (one "
            f"`  - GLOB` a line), and this file's is not one: add {', '.join(globs)} by hand",
        )
    end = start + 1
    while end < len(lines) and (lines[end].startswith((" ", "\t")) or not lines[end].strip()):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    added = [f'  - "{glob}"' for glob in globs]
    return "\n".join([*lines[:end], *added, *lines[end:]]) + "\n"


def merge_policy(existing: bytes, rendered: str, source: str) -> str:
    """The existing policy file with what init's `rendered` policy adds to it."""
    document = cast(dict[str, Any], load_yaml(existing, source) or {})
    parse_policy(existing, source)  # a file the gate would refuse is settled first
    text = existing.decode("utf-8")
    if text and not text.endswith("\n"):
        text += "\n"
    wanted = cast(dict[str, Any], load_yaml(rendered.encode(), source))
    blocks = _blocks(rendered)
    for key, block in blocks.items():
        if key in MERGED and key not in document:
            text += "\n" + block + "\n"
    if HARNESS in document and HARNESS in wanted:
        missing = [glob for glob in wanted[HARNESS] if glob not in (document[HARNESS] or [])]
        if missing:
            text = _add_globs(text, missing, source)
    parse_policy(text.encode(), source)
    return text
