"""The GitHub Action's inputs, as the runner hands them to the container, as `waiver gate` arguments."""

from collections.abc import Mapping

# The action's inputs that become `waiver gate` flags of the same name. The runner exposes
# an input as INPUT_<NAME>: upper-cased, dashes kept (`known-tests` -> INPUT_KNOWN-TESTS).
GATE_INPUTS: tuple[str, ...] = (
    "reports",
    "properties",
    "fixtures",
    "lock",
    "known-tests",
    "freezes",
    "config",
    "min-replays",
    "freeze-hours",
    "trusted-ref",
    "replays",
    "shards",
    "base-reports",
    "red-green",
    "change-tests",
    "approvals",
    "provenance",
    "history",
    "out",
)


def input_variable(name: str) -> str:
    """The environment variable through which the runner passes the input `name`."""
    return f"INPUT_{name.upper()}"


def gate_argv(env: Mapping[str, str]) -> list[str]:
    """`waiver gate` arguments for the inputs set in `env`; an empty input is left out.

    Each flag is joined to its value with `=`, so a value that starts with `-` stays a value.
    The job summary goes to `$GITHUB_STEP_SUMMARY` when the runner provides one.
    """
    argv = ["gate"]
    for name in GATE_INPUTS:
        value = env.get(input_variable(name), "")
        if value:
            argv.append(f"--{name}={value}")
    summary = env.get("GITHUB_STEP_SUMMARY", "")
    if summary:
        argv.append(f"--summary={summary}")
    return argv
