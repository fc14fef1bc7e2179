"""Test ids from long dotted classnames: found by walking the folders that exist."""

from __future__ import annotations

from pathlib import Path

from waiver.read.junit.stream import MAX_ID_CHARS
from waiver.read.junit.testid import TestIdRule


def test_the_longest_module_is_found_below_existing_folders(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a.py").write_text("")
    (tmp_path / "a" / "b.py").write_text("")
    (tmp_path / "a" / "b" / "c.py").write_text("")
    rule = TestIdRule(str(tmp_path))
    assert rule("s", "a.b.c.Class", "test_x") == "a/b/c.py::Class::test_x"
    assert rule("s", "a.b.Other", "test_x") == "a/b.py::Other::test_x"
    assert rule("s", "a.x.Other", "test_x") == "a.py::x::Other::test_x"
    assert rule("s", "z.b", "test_x") == "z.b::test_x"


def test_a_classname_at_the_cap_below_real_folders_keeps_its_module(tmp_path: Path) -> None:
    folder = tmp_path
    for _ in range(20):
        folder = folder / "a"
        folder.mkdir()
    (folder / "t.py").write_text("")
    rest = ".".join(["a"] * ((MAX_ID_CHARS - 100) // 2))
    classname = ".".join(["a"] * 20 + ["t", rest])
    test_id = TestIdRule(str(tmp_path))("s", classname, "x")
    assert test_id == "/".join(["a"] * 20 + ["t.py"]) + "::" + rest.replace(".", "::") + "::x"
