"""Strict JSON for untrusted files: duplicate keys, NaN and Infinity are errors, not values.

So are numbers no JSON writer can give back: a float beyond the double range (`1e400`
would be written out again as `Infinity`) and an integer longer than Python converts.
"""

from __future__ import annotations

import json
import math

from waiver.errors import InputError


class _Strict(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    result: dict[str, object] = {}
    for key, value in pairs:
        if key in result:
            raise _Strict(f"duplicate key {key!r}")
        result[key] = value
    return result


def _no_constant(name: str) -> object:
    raise _Strict(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Strict(f"the number {text[:40]} is beyond the range of a JSON number")
    return value


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:  # more digits than Python's limit on int conversion
        raise _Strict(f"an integer of {len(text)} digits is too long") from None


def parse_json(data: bytes, source: str) -> object:
    try:
        return json.loads(
            data.decode("utf-8"),
            object_pairs_hook=_no_duplicates,
            parse_constant=_no_constant,
            parse_float=_finite,
            parse_int=_integer,
        )
    except _Strict as error:
        raise InputError(source, str(error)) from None
    except UnicodeDecodeError as error:
        raise InputError(source, f"not UTF-8 ({error.reason} at byte {error.start})") from None
    except json.JSONDecodeError as error:
        raise InputError(
            source, f"not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})"
        ) from None
    except RecursionError:
        raise InputError(source, "JSON nested too deep") from None
