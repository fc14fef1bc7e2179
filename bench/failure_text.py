"""What a failing or chatty testcase of the generated reports says: pytest's long
tracebacks, assertion diffs and captured output, escaped as its junitxml writer escapes
them (bench/generate.py)."""

from __future__ import annotations

import random


def text_escape(value: str) -> str:
    """Escape character data the way pytest's junitxml writer does."""
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def attr_escape(value: str) -> str:
    """Escape a double-quoted attribute value, newlines as character references."""
    return text_escape(value).replace('"', "&quot;").replace("\n", "&#10;")


def frame(rng: random.Random, depth: int) -> str:
    """One library frame of a pytest long traceback."""
    module = f"src/service/layer_{rng.randrange(40)}.py"
    function = f"handle_{rng.choice(['request', 'payload', 'batch', 'record', 'merge'])}"
    lines = [
        "",
        f"{module}:{rng.randrange(20, 900)}: in {function}",
        f"    result = self._step_{depth}(payload, options=options)",
        f"{module}:{rng.randrange(20, 900)}: in _step_{depth}",
        f"    for key, value in sorted(payload.items()):  # <{depth}> keys",
        f"        if value is not None and key != 'checksum_{rng.randrange(1000)}':",
        "            normalized[key] = coerce(value, schema.fields[key], "
        f"strict={rng.random() < 0.5})",
        f">   return self.reduce(normalized, seed={rng.randrange(10**6)})",
    ]
    return "\n".join(lines)


def diff_lines(rng: random.Random) -> list[str]:
    """The assertion-diff lines pytest prints for a dict comparison."""
    lines = [
        "E         ",
        "E         Omitting 4 identical items, use -vv to show",
        "E         Differing items:",
    ]
    for _ in range(rng.randrange(6, 24)):
        key = f"field_{rng.randrange(500)}"
        lines.append(
            f"E         {{'{key}': {rng.randrange(10**4)}}} != {{'{key}': {rng.randrange(10**4)}}}"
        )
    lines.append("E         Full diff:")
    for _ in range(rng.randrange(6, 24)):
        sign = rng.choice("-+ ")
        lines.append(
            f"E         {sign}     'field_{rng.randrange(500)}': \"value & <{rng.randrange(99)}>\","
        )
    return lines


def failure_xml(
    rng: random.Random, module_path: str, name: str, *, is_error: bool, fixtures: int
) -> str:
    """A `<failure>` or `<error>` element with a multi-KB pytest long traceback."""
    param = name[name.index("[") + 1 : -1]
    function = name[: name.index("[")]
    if is_error:
        message = 'failed on setup with "RuntimeError: fixture database unavailable"'
        head = [
            "@pytest.fixture",
            "    def database(tmp_path):",
            '>       raise RuntimeError("fixture database unavailable")',
            "E       RuntimeError: fixture database unavailable",
        ]
        body = head + [frame(rng, depth) for depth in range(rng.randrange(2, 6))]
        body += ["", f"{module_path}:{rng.randrange(5, 400)}: RuntimeError"]
        tag = "error"
    else:
        expected = rng.randrange(10**4)
        message = (
            f"AssertionError: mismatch for {param}\n"
            f"assert {{'id': {expected}, 'items': [...], 'state': 'ok'}} == "
            f"{{'id': {expected}, 'items': [...], 'state': \"it's <stale>\"}}"
        )
        body = [
            f"param = '{param}'",
            "",
            '    @pytest.mark.parametrize("param", PARAMS)',
            f"    def {function}(param):",
            f"        payload = load_fixture('case_{rng.randrange(fixtures):03d}.json')",
            "        result = transform(payload, mode=param)",
        ]
        body += [frame(rng, depth) for depth in range(rng.randrange(3, 9))]
        body += [
            "",
            '>       assert result == expected[param], f"mismatch for {param}"',
            f"E       AssertionError: mismatch for {param}",
            f"E       assert {{'id': {expected}, 'items': [...], 'state': 'ok'}} == {{...}}",
        ]
        body += diff_lines(rng)
        body += ["", f"{module_path}:{rng.randrange(5, 400)}: AssertionError"]
        tag = "failure"
    return f'<{tag} message="{attr_escape(message)}">{text_escape(chr(10).join(body))}</{tag}>'


def system_out_xml(rng: random.Random, name: str) -> str:
    """A captured-output block as pytest writes it with junit_logging=system-out."""
    lines = ["-" * 33 + " Captured Out " + "-" * 33]
    for step in range(rng.randrange(3, 12)):
        lines.append(f"[{name}] step {step}: loaded {rng.randrange(10**5)} rows <ok> & cached")
    return f"<system-out>{text_escape(chr(10).join(lines))}\n\n</system-out>"
