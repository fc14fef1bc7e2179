"""`Policy`, the one declaration of each key of the policy file, `waiver.yml`: its value for
the run, its default and its `Key`, from which the reader, the effective settings, the
report's policy section and both JSON Schemas follow."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import Field, dataclass, field
from typing import Any, Literal, TypeVar, get_args

# `registry: none` in the policy file: no known-tests registry, on purpose.
NO_REGISTRY = "none"
FreezeField = Literal["owner", "reason", "tracking"]
# The test runners the policy can name, each a package of `waiver.runners` that
# `waiver.runners.RUNNERS` holds under this name (docs/development.md, "A test runner").
RunnerName = Literal["pytest", "jest", "vitest", "mocha"]
RUNNER_NAMES: tuple[RunnerName, ...] = get_args(RunnerName)
DEFAULT_RUNNER: RunnerName = "pytest"
T = TypeVar("T")


@dataclass(frozen=True)
class Binding:
    """Tests (test-id globs) bound to the fixtures they read (globs over lock paths)."""

    tests: tuple[str, ...]
    fixtures: tuple[str, ...]


@dataclass(frozen=True)
class Key:
    """What makes a field of `Policy` a key of the policy file, `waiver.yml`.

    `schema` is the value's JSON Schema in waiver.yml (its `$ref`s name the `$defs` of
    waiver/schemas/waiver-config.schema.json); the value's schema in the report's `policy`
    object is the same types without their bounds, and null where the default is None, or
    `report` where that is given. tests/test_policy_keys.py holds both schema files to
    this declaration.
    """

    description: str
    schema: Mapping[str, object]
    section: str | None = None  # the object of waiver.yml the key sits in, as `limits`
    path: bool = False  # a path relative to the repository root
    # The field's value from the YAML value, which the schema has checked; by default
    # each list becomes a tuple.
    read: Callable[[Any], object] | None = None
    report: Mapping[str, object] | None = None

    def name(self, field_name: str) -> str:
        """The key's path in waiver.yml, as errors and the report's `sources` name it."""
        return field_name if self.section is None else f"{self.section}.{field_name}"


def _key(default: T, description: str, schema: Mapping[str, object], **more: Any) -> T:
    """A field of `Policy` with its default, declared as a key of waiver.yml."""
    declared = Key(description, schema, **more)
    return field(default=default, metadata={"key": declared})


def policy_key(policy_field: Field[object]) -> Key:
    """The `Key` a field of `Policy` (from `dataclasses.fields`) was declared with."""
    key: Key = policy_field.metadata["key"]
    return key


def _bindings(items: list[dict[str, list[str]]]) -> tuple[Binding, ...]:
    return tuple(Binding(tuple(item["tests"]), tuple(item["fixtures"])) for item in items)


def _list(of: Mapping[str, object], **more: object) -> Mapping[str, object]:
    return {"type": "array", "items": of, **more}


def _runner_words() -> str:
    """The runner names in a sentence, the default first: `pytest (default), jest or mocha`."""
    others = [name for name in RUNNER_NAMES if name != DEFAULT_RUNNER]
    return f"{DEFAULT_RUNNER} (default), {', '.join(others[:-1])} or {others[-1]}"


PATTERN = {"$ref": "#/$defs/pattern"}
SECTIONS = {"limits": "Caps used while reading the replays."}


@dataclass(frozen=True)
class Policy:
    """Every key of the policy file, each declared once: its value for the run, its default
    (where neither a flag nor the file sets it), and its `Key`.

    The policy reader (`waiver.read.policy`), the effective settings and where each value
    came from, the report's `policy` object and both JSON Schemas follow from these fields;
    the decision (`waiver.decide.decision`) takes the whole object.
    """

    min_replays: int = _key(
        5,
        "Replay outcomes a test needs before it can be anything but unknown_test (default 5).",
        {"$ref": "#/$defs/positive"},
    )
    freeze_hours: int = _key(
        24,
        "Lifetime of a fresh freeze proposal in hours (default 24); at most max_freeze_hours.",
        {"$ref": "#/$defs/hours"},
    )
    max_freeze_hours: int = _key(
        168,
        "A stored freeze record whose lifetime exceeds this is void (default 168).",
        {"$ref": "#/$defs/hours"},
    )
    strict: tuple[str, ...] = _key(
        (),
        "Test-id glob patterns whose unstable_assertion rows block admission and get no proposal.",
        _list(PATTERN),
    )
    introduced_instability: Literal["review", "block"] = _key(
        "review",
        "review (default): base replays are evidence only. block: an unstable_assertion row "
        "blocks and gets no proposal unless the base replays show the same test flipping; "
        "introduced, missing or short base evidence blocks.",
        {"enum": ["review", "block"]},
    )
    # What an accepted freeze must name (owner, reason, tracking); a record without is void.
    freeze_requires: tuple[FreezeField, ...] = _key(
        (),
        "What an accepted freeze record must name: owner (a login), reason, tracking (an "
        "issue's URL). `waiver freeze accept` refuses without them, and the gate treats a "
        "stored record that lacks one as void. Default: none.",
        _list({"enum": list(get_args(FreezeField))}, uniqueItems=True),
    )
    # None: no limit, so that `freeze accept` needs the store's git history only where the
    # policy asks for a limit.
    max_renewals: int | None = _key(
        None,
        "How many times a test's freeze may be renewed: accepted again after its first "
        "record, counted as distinct records in the git history of the freeze store. "
        "`waiver freeze accept` refuses a renewal past it and says to fix or delete the "
        "test. Default: no limit.",
        {"type": "integer", "minimum": 0},
    )
    # Empty: every regular file under the fixtures folder (or, when the file says
    # `fixtures: []`, none: the lock then holds the harness alone).
    fixtures: tuple[str, ...] = _key(
        (),
        "Include patterns of the locked fixture set, relative to the fixtures folder (a "
        "leading '/' or './' anchors there too); each must match a file (default: every "
        "regular file in it). An empty list says the tests read no fixtures: the lock holds "
        "the test harness alone.",
        _list(PATTERN),
    )
    bindings: tuple[Binding, ...] = _key(
        (),
        "Tests bound by test-id pattern to the fixtures they read; unbound tests are bound "
        "to the whole set.",
        _list({"$ref": "#/$defs/binding"}),
        read=_bindings,
    )
    # Globs added to the built-in harness files, never removing one.
    harness: tuple[str, ...] = _key(
        (),
        "Globs of more test-harness files to lock (another runner's configuration), added "
        "to conftest.py, the pytest configuration and the property-suite modules, which are "
        "always locked. A glob without '/' matches a file name in any folder; one with '/', "
        "or starting with '/' or './', the repository-relative path. Each must match a file.",
        {"$ref": "#/$defs/patterns"},
    )
    # What the test and property commands run by name (`npm test`): their definitions are
    # harness, each a table of the root package.json (`waiver.read.harness.named`).
    package_scripts: tuple[str, ...] = _key(
        (),
        "The package scripts (the root package.json's `scripts`) that the test and property "
        "commands run by name, as `npm test` runs `test`: the definition of each, and of its "
        "`pre` and `post` scripts, is test harness, locked as a table of package.json, so a "
        "change that edits one drifts. `waiver init` writes it from the commands.",
        _list({"type": "string", "pattern": "^[A-Za-z0-9_.:-]+$"}, minItems=1, uniqueItems=True),
    )
    # Data beside the tests that a change may add or edit without drift.
    unlocked_data: tuple[str, ...] = _key(
        (),
        "Globs of data files beside the tests that a change may add or edit without drift "
        "(scratch output, snapshots that tests rewrite). Any other file but a Python module, "
        "documentation or git's own that the change's commit adds or edits under a test "
        "folder, and that the lock does not hold, is drift, like a fixture. A glob without "
        "'/' matches a file name in any folder; one with '/', or starting with '/' or './', "
        "the repository-relative path.",
        {"$ref": "#/$defs/patterns"},
    )
    # How the property suite is set apart: modules of its own, or selected among the tests.
    property_suite: Literal["folder", "selected"] = _key(
        "folder",
        "folder (default): the property suite is modules of its own; every module the "
        "property report names is harness, locked and unchanged. selected: the property "
        "tests are selected among the other tests (a marker, -k or ids), so their modules "
        "are test modules, not harness, and a registered property test the change edits is "
        "unknown_test (edited), like any registered test.",
        {"enum": ["folder", "selected"]},
    )
    # The test runner the replays run (`waiver.runners`). A string, whatever ruff makes of
    # the alias of its Literal.
    runner: RunnerName = _key(  # noqa: RUF009
        DEFAULT_RUNNER,
        f"The test runner the replays run: {_runner_words()}. It decides which files are the "
        "test harness, how a report's testcase becomes a test id, and how a test's definition "
        "is compared.",
        {"enum": list(RUNNER_NAMES)},
        # A report names the runner it ran; which names a policy may give is the policy
        # file's schema to say, so that a new runner changes no report's shape.
        report={"type": "string"},
    )
    # What an approval needs to admit a new or edited test: `red_green` (`waiver.gate.red_green_evidence`).
    review_requires: tuple[Literal["red_green"], ...] = _key(
        (),
        "What an approval needs besides itself to admit a new or edited test. red_green: its "
        "red-green outcome must be red_green (it failed every replay on the base's code with "
        "the change's test files, and passed every replay of the change); otherwise the row "
        "stays blocked and says why. Default: nothing (an approval admits what passed every "
        "replay).",
        _list({"enum": ["red_green"]}, uniqueItems=True),
    )
    # None: any user with write permission counts.
    approvers: tuple[str, ...] | None = _key(
        None,
        "GitHub logins whose approval may admit what blocks only for review (edited, new and "
        "vanished tests, a fixture update of its own). Without it, any user with write, "
        "maintain or admin permission who wrote none of the pull request counts; with it, "
        "only those of them named here.",
        _list({"type": "string", "pattern": "^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$"}, minItems=1),
    )
    # NO_REGISTRY when the file says there is none, on purpose.
    registry: str | None = _key(
        None,
        "The known-tests file, relative to the repository root; `none` to go without one on "
        "purpose (new and vanished tests are then not detected).",
        {"$ref": "#/$defs/path"},
        path=True,
    )
    freezes: str | None = _key(
        None,
        "The freeze store, relative to the repository root.",
        {"$ref": "#/$defs/path"},
        path=True,
    )
    # The default branch's history (`waiver history`, docs/history.md): evidence beside rows.
    history_runs: int = _key(
        100,
        "The most default-branch runs the history keeps; older ones leave it (default 100).",
        {"type": "integer", "minimum": 1, "maximum": 10000},
    )
    history_days: int = _key(
        30,
        "Runs older than this many days leave the history (default 30).",
        {"type": "integer", "minimum": 1, "maximum": 3650},
    )
    flag_failure_rate: float = _key(
        0.15,
        "A test is flagged when its failure rate on the default branch (runs where a replay "
        "failed, of the runs it ran in, storms left out) reaches this (default 0.15).",
        {"type": "number", "minimum": 0, "maximum": 1},
    )
    clear_failure_rate: float = _key(
        0.05,
        "A flagged test is cleared only when its failure rate falls below this, which must be "
        "less than flag_failure_rate; between the two it keeps its state (default 0.05).",
        {"type": "number", "minimum": 0, "maximum": 1},
    )
    min_history_sample: int = _key(
        10,
        "Runs a test must have run in before its failure rate flags or clears it (default 10).",
        {"$ref": "#/$defs/positive"},
    )
    storm_failure_share: float = _key(
        0.8,
        "A run where more than this share of the tests that ran failed is a storm: recorded, "
        "and left out of every rate (default 0.8).",
        {"type": "number", "minimum": 0, "maximum": 1},
    )
    ewma_lambda: float = _key(
        0.1,
        "The weight of the newest run in the exponentially weighted rate of transitions "
        "between passing and failing runs (default 0.1).",
        {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
    )
    max_report_bytes: int = _key(
        512 << 20,
        "The size cap of one JUnit file (default 512 MiB); a larger one is unreadable.",
        {"$ref": "#/$defs/positive"},
        section="limits",
    )
    max_files_per_replay: int = _key(
        10_000,
        "The most files one replay's folder may hold (default 10000).",
        {"$ref": "#/$defs/positive"},
        section="limits",
    )
