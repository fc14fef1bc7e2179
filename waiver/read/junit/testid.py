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

A test id is one line of printable text: one that holds a control character (C0, DEL or
C1) cannot be a registry line, a word of a command line (NUL) or a line of a log, and is
refused where ids enter: a report's testcase, a registry's line, the ids red-green
replays are given (`id_problem`).

Only dotted parts made of word characters and `-` are ever looked up, so a classname
like `../secret-file` is a plain string and never becomes a path; nothing is opened, a
candidate module is only stat'ed, once per classname. The lookup walks down the folders
that exist, each opened relative to the one above, and stops at the first that does not:
a long dotted classname costs time linear in its length.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field

PATH_PART = re.compile(r"[\w-]+\Z")
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
# A runner's own reading of a testcase (`waiver.runners`): the id made from the innermost
# suite's name, the classname, the name, the `file` the report gives the case (its own,
# else the nearest suite's; "" when none) and whether that file is the case's own; None
# where the case is read by the rule above, as any other report's.
CaseId = Callable[[str, str, str, str, bool], str | None]


def id_problem(test_id: str) -> str | None:
    """Why `test_id` is refused as a test id (a control character); None when it is one."""
    found = CONTROL.search(test_id)
    if found is None:
        return None
    return (
        f"a test id holds the control character U+{ord(found[0]):04X}; "
        "an id is one line of printable text"
    )


@dataclass
class _Folder:
    """A folder's `.py` module names and subfolder names, and the subfolders listed so far."""

    modules: frozenset[str] = frozenset()
    folders: frozenset[str] = frozenset()
    children: dict[str, _Folder] = field(default_factory=dict)


def _listing(fd: int | None) -> _Folder:
    if fd is None:
        return _Folder()
    modules, folders = [], []
    try:
        with os.scandir(fd) as entries:
            for entry in entries:
                if entry.name.endswith(".py") and entry.is_file():
                    modules.append(entry.name[:-3])
                elif entry.is_dir():
                    folders.append(entry.name)
    except OSError:
        return _Folder()
    return _Folder(frozenset(modules), frozenset(folders))


def _open_inside(folder: int | None, name: str) -> int | None:
    """The folder `name` inside `folder`, opened; `folder` is closed. None when it cannot be."""
    if folder is None:
        return None
    try:
        return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=folder)
    except OSError:
        return None
    finally:
        os.close(folder)


def _open_chain(root: str, parts: list[str]) -> int | None:
    try:
        folder: int | None = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    for part in parts:
        folder = _open_inside(folder, part)
    return folder


class TestIdRule:
    __test__ = False  # not a pytest test class, despite its name

    def __init__(self, root: str | None, case_id: CaseId | None = None) -> None:
        self._root = root
        self.case_id = case_id
        # classname -> the id up to the name, for every classname the rule has seen; the
        # replay reader looks here first, as it makes an id for every testcase it reads.
        self.prefixes: dict[str, str] = {}
        self._top: _Folder | None = None

    def _prefix(self, classname: str) -> str:
        """The id up to the name: `path.py::Class::` when `classname` names a module.

        The module is the longest run of leading parts that names a file `<parts>.py`.
        """
        parts = classname.split(".")
        if self._root is None or not all(PATH_PART.match(part) for part in parts):
            return f"{classname}::"
        found = self._module_depth(self._root, parts)
        if not found:
            return f"{classname}::"
        return "::".join(["/".join(parts[:found]) + ".py", *parts[found:], ""])

    def _module_depth(self, root: str, parts: list[str]) -> int:
        """How many leading parts name a module file; 0 when none does.

        Each folder is listed once and kept, and a folder not yet listed is opened
        relative to the one above it: a classname costs time linear in its length, and a
        report of many deep classnames costs one listing per folder the repository has.
        """
        node = self._listed(root)
        found = 0
        held: int | None = None  # an open descriptor of `node`, once one was needed
        try:
            for cut, part in enumerate(parts, start=1):
                if part in node.modules:
                    found = cut
                if part not in node.folders:
                    break
                child = node.children.get(part)
                if child is None or held is not None:
                    if held is None:
                        held = _open_chain(root, parts[: cut - 1])
                    held = _open_inside(held, part)
                    if child is None:
                        child = node.children[part] = _listing(held)
                node = child
        finally:
            if held is not None:
                os.close(held)
        return found

    def _listed(self, root: str) -> _Folder:
        if self._top is None:
            top = _open_chain(root, [])
            try:
                self._top = _listing(top)
            finally:
                if top is not None:
                    os.close(top)
        return self._top

    def with_file(self, suite: str, classname: str, name: str, file: str, own: bool) -> str:
        """The id of a testcase whose report gives it `file` (its own attribute when `own`):
        the runner's reading where it has one, else the rule's."""
        if self.case_id is not None:
            found = self.case_id(suite, classname, name, file, own)
            if found is not None:
                return found
        return self(suite, classname, name)

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
