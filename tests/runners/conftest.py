"""The runners and reporters from the npm registry, installed once for every worker."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.node_support import MOCHA_9, node_install


@pytest.fixture(scope="session")
def node_modules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`node_modules` holding jest, jest-junit, mocha, mocha-junit-reporter and chai, shared
    by the workers of one session (their base folder's parent is common to them)."""
    return node_install(tmp_path_factory.getbasetemp().parent / "node-runners")


@pytest.fixture(scope="session")
def mocha_9_modules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`node_modules` holding mocha 9 and chai, in a folder of its own."""
    return node_install(tmp_path_factory.getbasetemp().parent / "node-mocha-9", MOCHA_9)
