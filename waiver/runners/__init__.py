"""The test runners the gate protects, by name: the one list of them.

Each runner is a package of its own, `waiver.runners.<name>`, holding all that runner
knows behind one interface (`waiver.runners.base.Runner`); `waiver.runners.all_runners`
holds the runners themselves. The names are written here alone: the policy file's
`runner:` key (`waiver.decide.policy`), the report's `policy.runner`
(`waiver.write.report_types`) and the tests take them from `RunnerName`. This module
imports nothing of waiver's, so that every layer may read the names (docs/development.md,
"A test runner").
"""

from __future__ import annotations

from typing import Literal, get_args

RunnerName = Literal["pytest", "jest", "vitest", "mocha"]
RUNNER_NAMES: tuple[RunnerName, ...] = get_args(RunnerName)
DEFAULT_RUNNER: RunnerName = "pytest"
