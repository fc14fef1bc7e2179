"""JSON with comments, as TypeScript, babel and jest read their `.json` configuration
(`tsconfig.json`, `.babelrc`): `//` and `/* */` comments and a trailing comma before `]` or
`}` are allowed, and read as if they were not there; the rest is JSON, read strictly."""

from __future__ import annotations

import json

from waiver.errors import InputError
from waiver.read.untrusted.bounded import check_shape

BLANK = " \t\r\n"


def _skip_comment(text: str, at: int) -> int:
    """Where the comment starting at `at` ends; `at` when none starts there."""
    if text.startswith("//", at):
        end = text.find("\n", at)
        return len(text) if end < 0 else end
    if text.startswith("/*", at):
        end = text.find("*/", at + 2)
        return len(text) if end < 0 else end + 2
    return at


def _string_end(text: str, at: int) -> int:
    """Where the string starting at `at` ends, past its closing quote."""
    end = at + 1
    while end < len(text) and text[end] != '"':
        end += 2 if text[end] == "\\" else 1
    return end + 1


def _next_token(text: str, at: int) -> int:
    """Where the next character that is neither blank nor a comment is."""
    while at < len(text):
        skipped = _skip_comment(text, at)
        if skipped != at:
            at = skipped
        elif text[at] in BLANK:
            at += 1
        else:
            break
    return at


def plain_json(text: str) -> str:
    """`text` without its comments and trailing commas, strings left as they are."""
    out: list[str] = []
    at = 0
    while at < len(text):
        char = text[at]
        if char == '"':
            end = _string_end(text, at)
            out.append(text[at:end])
            at = end
            continue
        skipped = _skip_comment(text, at)
        if skipped != at:
            out.append(" ")
            at = skipped
            continue
        following = _next_token(text, at + 1)
        if char != "," or following >= len(text) or text[following] not in "]}":
            out.append(char)
        at += 1
    return "".join(out)


def read_jsonc(data: bytes, path: str) -> object:
    """A JSON-with-comments file's value; anything else is an input error naming `path`, and
    so is a value past the caps of `waiver.read.untrusted.bounded.check_shape`."""
    try:
        document = json.loads(plain_json(data.decode("utf-8-sig")))
    except (UnicodeDecodeError, ValueError) as error:
        raise InputError(path, f"not valid JSON: {error}") from None
    except RecursionError:
        raise InputError(path, "not valid JSON: nested too deep") from None
    check_shape(document, path, "JSON")
    return document
