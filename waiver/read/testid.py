"""The one rule that turns a JUnit testcase into a test id, for reports and the registry alike.

`TestIdRule(root)(suite, classname, name)` is the id of a testcase named `name`, with
the `classname` attribute, in the innermost `<testsuite>` named `suite`:

- A classname whose leading dotted parts name a Python module that exists under the
  repository root becomes a pytest node id: `tests.unit.test_x.TestY` + `test_z[1]` ->
  `tests/unit/test_x.py::TestY::test_z[1]` (pytest writes the node id with `/` and `.py`
  turned into dots; this turns it back).
- Any other classname is kept: `com.acme.FooTest` + `bar` -> `com.acme.FooTest::bar`.
- An empty classname falls back to the suite's name (`widget.test.js::Mount iframe`),
  then to the bare name.

The `file` and `line` attributes are not part of the id: pytest's default report format
(xunit2) does not write them, so using them would change ids with a pytest setting.
Nothing else about a run (time, hostname, order) is either, so an id is the same in every
replay and on the base and the head of a pull request, as long as the module exists in
both.

Only dotted parts made of word characters and `-` are ever looked up, so a classname
like `../secret-file` is a plain string and never becomes a path; nothing is opened, a
candidate module is only stat'ed, once per classname. The lookup walks down the folders
that exist and stops at the first that does not, so a long dotted classname costs as many
stats as the repository has folders on its way, not one per dotted part.
"""

from __future__ import annotations

import os
import re

PATH_PART = re.compile(r"[\w-]+\Z")


class TestIdRule:
    __test__ = False  # not a pytest test class, despite its name

    def __init__(self, root: str | None) -> None:
        self._root = root
        # classname -> the id up to the name, for every classname the rule has seen; the
        # replay reader looks here first, as it makes an id for every testcase it reads.
        self.prefixes: dict[str, str] = {}

    def _prefix(self, classname: str) -> str:
        """The id up to the name: `path.py::Class::` when `classname` names a module.

        The module is the longest run of leading parts that names a file `<parts>.py`.
        """
        parts = classname.split(".")
        if self._root is None or not all(PATH_PART.match(part) for part in parts):
            return f"{classname}::"
        found = 0
        folder = self._root
        for cut, part in enumerate(parts, start=1):
            path = os.path.join(folder, part)
            if os.path.isfile(path + ".py"):
                found = cut
            if not os.path.isdir(path):
                break  # no module can lie below a folder that does not exist
            folder = path
        if not found:
            return f"{classname}::"
        return "::".join(["/".join(parts[:found]) + ".py", *parts[found:], ""])

    def __call__(self, suite: str, classname: str, name: str) -> str:
        if classname:
            # Called once per testcase of every replay: the lookup is inlined and cached.
            prefix = self.prefixes.get(classname)
            if prefix is None:
                prefix = self.prefixes[classname] = self._prefix(classname)
            return prefix + name
        if suite:
            return f"{suite}::{name}"
        return name
