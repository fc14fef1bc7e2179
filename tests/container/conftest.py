"""What the act tests of this folder share: a runner that can run at all."""

from __future__ import annotations

import os

import pytest

from helpers.act_support import act_missing_reason


@pytest.fixture(scope="session")
def act_ready() -> None:
    reason = act_missing_reason()
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the act tests cannot run in CI: {reason}")
        pytest.skip(reason)
