"""The Node version the workflow sets up: the project's version file, else `engines.node`,
else the Node init runs with; a note when that is not the Node init proved the commands
with."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.support import write_tree
from waiver.runners.node.setup.node_versions import NodeVersion, project_node


@pytest.mark.parametrize(
    ("files", "package", "expected"),
    [
        ({".nvmrc": "v20.11.1\n"}, {}, NodeVersion("20.11.1", ".nvmrc")),
        ({".nvmrc": "# the LTS\nlts/iron\n"}, {}, NodeVersion("lts/iron", ".nvmrc")),
        ({".node-version": "22\n"}, {}, NodeVersion("22", ".node-version", (
            "the workflow sets up Node 22, from .node-version; init ran the suite with Node "
            "20.20.2, a major version of its own: run init with Node 22 on PATH to prove the "
            "commands with it"))),
        ({".tool-versions": "python 3.12.1\nnodejs 20.9.0\n"}, {},
         NodeVersion("20.9.0", ".tool-versions")),
        ({}, {"volta": {"node": "20.10.0"}}, NodeVersion("20.10.0", "volta.node in package.json")),
        ({".nvmrc": "20\n"}, {"engines": {"node": ">=22"}}, NodeVersion("20", ".nvmrc")),
        ({}, {"engines": {"node": ">=18"}}, NodeVersion("20", "engines.node in package.json (>=18)")),
        ({}, {"engines": {"node": "^18.12.0 || ^22"}}, NodeVersion(
            "18", "engines.node in package.json (^18.12.0 || ^22)", (
                "the workflow sets up Node 18, from engines.node in package.json (^18.12.0 || "
                "^22); init ran the suite with Node 20.20.2, a major version of its own: run "
                "init with Node 18 on PATH to prove the commands with it"))),
        ({}, {"engines": {"node": "18.x - 20.x"}}, NodeVersion(
            "20", "engines.node in package.json (18.x - 20.x)")),
        ({}, {"engines": {"node": "not a range"}}, NodeVersion("20", "the Node init ran the suite with")),
        ({".nvmrc": "something else\n"}, {}, NodeVersion("20", "the Node init ran the suite with")),
        ({}, {}, NodeVersion("20", "the Node init ran the suite with")),
    ],
    ids=["nvmrc", "lts name", "node-version", "tool-versions", "volta", "the file first",
         "engines", "engines below", "hyphen range", "no range", "no version", "none"],
)  # fmt: skip
def test_where_the_workflow_s_node_comes_from(
    tmp_path: Path, files: dict[str, str], package: dict[str, object], expected: NodeVersion
) -> None:
    root = write_tree(tmp_path, files)
    assert project_node(str(root), package, "20.20.2") == expected
