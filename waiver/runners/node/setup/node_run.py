"""One real run of a JavaScript project's suites, for `waiver init`: the registry's ids.

Collection alone is not portable across jest, vitest and mocha, so the property command and
the test command init writes run once each, in the repository's own `node_modules`, with
`WAIVER_JUNIT` naming a report in a scratch folder, and the reports are read with the
runner's id rule as the gate reads a replay. When npm's lockfile is there, `npm ci`
installs first, as the workflow's install step does. A command that leaves no report is a
problem naming it with its output; tests that run and fail are the tree's own state.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Sequence
from functools import partial

from waiver.errors import InputError
from waiver.init.collection import OUTPUT_TAIL, PROVE_SECONDS, Ran, read_ran
from waiver.init.layout import inside
from waiver.init.problems import Problems
from waiver.runners import NODE_RUNNERS

NODE_VERSION_SECONDS = 60


def node_version() -> str:
    """The version of the Node on PATH (`20.11.1`), which the suites are proven with."""
    try:
        completed = subprocess.run(
            ["node", "--version"], capture_output=True, text=True, check=False,
            timeout=NODE_VERSION_SECONDS,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as error:
        raise InputError("node", f"cannot run node, which runs the suite once: {error}") from None
    version = completed.stdout.strip().removeprefix("v")
    if completed.returncode != 0 or not version.split(".", 1)[0].isdigit():
        raise InputError("node", f"`node --version` said {completed.stdout.strip()!r}")
    return version


def _run(flag: str, command: str, junit: str | None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if junit is not None:
        env["WAIVER_JUNIT"] = junit
    try:
        return subprocess.run(
            ["bash", "-c", command], env=env, capture_output=True, text=True, check=False,
            timeout=PROVE_SECONDS,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        raise InputError(flag, f"did not end within {PROVE_SECONDS} s: {command}") from None


def install(command: str) -> None:
    """The install step, run once in the repository: an error naming it, with the head of
    its output, when it fails."""
    completed = _run("install", command, None)
    if completed.returncode != 0:
        # npm says first why it stopped, then what it could not do.
        head = (completed.stderr or completed.stdout)[:OUTPUT_TAIL]
        raise InputError(command, f"the install step failed (exit {completed.returncode})\n{head}")


def run_suite(flag: str, command: str, runner: str) -> Ran:
    """The ids of one run of a written command, read with `runner`'s id rule."""
    with tempfile.TemporaryDirectory(prefix="waiver-init-") as scratch:
        junit = os.path.join(scratch, "run.xml")
        completed = _run(flag, command, junit)
        if not os.path.isfile(junit):
            tail = (completed.stdout + completed.stderr)[-OUTPUT_TAIL:]
            raise InputError(
                flag,
                f"the written command left no report (exit {completed.returncode}): "
                f"{command}\n{tail}",
            )
        ran = read_ran(junit, NODE_RUNNERS[runner].test_ids("."))
    if not ran.test_ids:
        raise InputError(flag, f"the written command ran no test: {command}")
    return ran


def misplaced(ran: Ran, runner: str, suite: Sequence[str], wanted: bool) -> list[str]:
    """The files of `ran`'s ids that are inside the property suite's paths when `wanted`
    is False, or outside them when it is True: a command that runs the other suite's
    tests (a configuration's own `spec`, say)."""
    found = []
    for test_id in ran.test_ids:
        path = NODE_RUNNERS[runner].test_file(test_id)
        if path is not None and any(inside(path, part) for part in suite) != wanted:
            found.append(path)
    return sorted(set(found))


def run_suites(
    runner: str, commands: tuple[str, str], suite: Sequence[str], problems: Problems
) -> tuple[Ran, Ran] | None:
    """One run of the property command and of the test command; what stops either, or a
    command that runs the other's tests, goes to `problems`."""
    runs = []
    for flag, command, wanted in zip(
        ("--property-command", "--test-command"), commands, (True, False), strict=True
    ):
        ran = problems.attempt(partial(run_suite, flag, command, runner))
        if ran is not None:
            stray = misplaced(ran, runner, suite, wanted)
            if stray:
                where = "outside" if wanted else "inside"
                problems.add(
                    f"{flag} ran tests {where} the property suite ({', '.join(suite)}): "
                    f"{', '.join(stray[:5])}; give {flag} with a command that runs "
                    f"{'only' if wanted else 'none of'} them"
                )
                ran = None
        runs.append(ran)
    property_run, test_run = runs
    if property_run is None or test_run is None:
        return None
    return property_run, test_run
