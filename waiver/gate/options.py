"""What one `waiver gate` run is given: the paths and numbers of its command line."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from waiver.read.policy.settings import Flags


@dataclass(frozen=True)
class GateOptions:
    reports: str
    properties: str
    fixtures: str
    lock: str
    out: str
    root: str
    flags: Flags = field(default_factory=Flags)
    config: str | None = None
    summary: str | None = None
    # True when `summary` is the runner's job-summary file, the one file appended to.
    summary_appends: bool = False
    replays: int | None = None
    shards: int | None = None
    base_reports: str | None = None
    base_replays: int | None = None
    approvals: str | None = None  # "github", or the file `waiver approvals` wrote
    provenance: str | None = None  # the file `waiver provenance` wrote: the reports' run
    # The default branch's history (`waiver history record`): evidence beside rows.
    history: str | None = None
    # The files (or folders) `waiver red-green` wrote, one per shard: evidence beside rows.
    red_green: tuple[str, ...] = ()
    # The replays of the change's new and edited tests on its own tree, run apart from the
    # verdict replays (`reports`), which then ran the base's test tree.
    change_tests: str | None = None
    # The environment `--approvals github` reads GitHub's API, token and event from.
    environment: Mapping[str, str] = field(default_factory=dict)
    # Whether the run's table is printed in the terminal (off a runner): it is rendered
    # while waiver.json is written.
    terminal: bool = False
