"""What every runner's plan of `waiver init` starts from: the options of the command, the
folders its flags name, and the policy file it writes or completes (each runner's plan:
`waiver.runners.pytest.setup.pytest_plan`, `waiver.runners.node.setup.node_plan`)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import partial

from waiver.errors import UsageError
from waiver.init.merge import merge_policy
from waiver.init.problems import Problems
from waiver.write.files.setup_files import (
    POLICY,
    Setup,
    render_policy,
)


@dataclass(frozen=True)
class InitOptions:
    fixtures: tuple[str, ...]  # the folders --fixtures named; empty: the ones found
    property_suites: tuple[str, ...]  # the folders --property-suite named; empty: found
    property_select: str | None  # --property-select: pytest words that select the suite
    test_command: str | None
    property_command: str | None
    waiver_repository: str | None
    waiver_ref: str | None
    force: bool
    dry_run: bool
    harness: tuple[str, ...] = ()  # --harness globs, kept in the policy file
    existing_policy: bytes | None = None  # the policy file there is, which init completes
    verify: bool = True  # False (--no-verify): the registry from pytest in this environment
    runner: str | None = None  # --runner: the runner to set up; None: the one found
    app_client_id: str | None = None  # --app-client-id: the app that posts the verdict
    setup_command: str | None = None  # --setup-command: the install step; None: the one found


def _folder(path: str, flag: str) -> str:
    """A flag's folder as a root-relative path, `/`-separated; never outside the root."""
    normal = os.path.normpath(path).replace(os.sep, "/")
    if os.path.isabs(normal) or normal == ".." or normal.startswith("../"):
        raise UsageError(f"{flag} must name a folder inside the repository, got {path!r}")
    if not os.path.isdir(normal):
        raise UsageError(f"{flag} {path}: no such folder")
    return normal


def policy_text(setup: Setup, existing: bytes | None, problems: Problems) -> str | None:
    """The policy file init writes, or the existing one completed with the keys it lacks;
    None when that cannot be done (the problem is in `problems`)."""
    policy = render_policy(setup)
    if existing is None:
        return policy
    return problems.attempt(partial(merge_policy, existing, policy, POLICY)) or None


def given_folders(paths: tuple[str, ...], flag: str, problems: Problems) -> tuple[str, ...]:
    """The folders a repeatable flag named; each one that is not a folder inside the
    repository goes to `problems`."""
    folders = []
    for path in paths:
        folder = problems.attempt(partial(_folder, path, flag))
        if folder is not None:
            folders.append(folder)
    return tuple(folders)
