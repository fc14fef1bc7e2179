"""The one rule that turns a JUnit testcase into a test id, for reports and the registry alike.

- A classname whose leading dotted parts name a Python module that exists under the
  repository root becomes a pytest node id: `tests.unit.test_x.TestY` + `test_z[1]` ->
  `tests/unit/test_x.py::TestY::test_z[1]`.
- Any other classname is kept: `com.acme.FooTest` + `bar` -> `com.acme.FooTest::bar`.
- An empty classname falls back to the enclosing suite's name, then to the bare name.

Only dotted parts that are Python identifiers are ever looked up, so a classname like
`../secret-file` is a plain string and never becomes a path; nothing is opened, only
stat'ed.
"""

from __future__ import annotations

import os
import re

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class TestIdRule:
    __test__ = False  # not a pytest test class, despite its name

    def __init__(self, root: str | None) -> None:
        self._root = root
        self._prefixes: dict[str, str] = {}

    def _prefix(self, classname: str) -> str:
        """`classname` rewritten as `path.py::Class` when it names a module, else as is."""
        cached = self._prefixes.get(classname)
        if cached is not None:
            return cached
        prefix = classname
        parts = classname.split(".")
        if self._root is not None and all(IDENTIFIER.match(part) for part in parts):
            for cut in range(len(parts), 0, -1):
                module = "/".join(parts[:cut]) + ".py"
                if os.path.isfile(os.path.join(self._root, module)):
                    prefix = "::".join([module, *parts[cut:]])
                    break
        self._prefixes[classname] = prefix
        return prefix

    def __call__(self, suite: str, classname: str, name: str) -> str:
        if classname:
            return f"{self._prefix(classname)}::{name}"
        if suite:
            return f"{suite}::{name}"
        return name
