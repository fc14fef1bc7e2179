"""The small readings of a syntax tree that every runner's edit findings share."""

from __future__ import annotations

import ast

from waiver.read.definitions.edit_kinds import dotted, own_nodes, short_text


def test_dotted_names_an_attribute_chain_and_nothing_else() -> None:
    assert dotted(ast.parse("pytest.mark.skip", mode="eval").body) == "pytest.mark.skip"
    assert dotted(ast.parse("skip", mode="eval").body) == "skip"
    assert dotted(ast.parse("marks()[0].skip", mode="eval").body) == ""


def test_own_nodes_leave_out_what_a_nested_function_runs() -> None:
    body = ast.parse("x = 1\ndef inner():\n    return 2\nf = lambda: 3\n").body
    returns = [node for node in own_nodes(body) if isinstance(node, ast.Return)]
    constants = sorted(node.value for node in own_nodes(body) if isinstance(node, ast.Constant))
    assert returns == [] and constants == [1]


def test_short_text_folds_whitespace_and_cuts_at_the_limit() -> None:
    node = ast.parse("assert   x ==\\\n  1", mode="exec").body[0]
    assert short_text(node) == "assert x == 1"
    assert short_text(ast.parse("'" + "a" * 200 + "'", mode="eval").body, 10) == "'aaaaaaaa…"
