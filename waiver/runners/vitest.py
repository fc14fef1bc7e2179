"""vitest, with its own JUnit reporter.

vitest's reporter writes the file, relative to the project root, as the classname and the
describe path and title (joined by ` > `) as the name, so the id is
`<file>::<describe> > <title>` by the rule every report is read by.
"""

from __future__ import annotations

from waiver.runners.node import NodeRunner
from waiver.runners.node_harness import NodeRunnerFiles

FILES = NodeRunnerFiles(
    configs=("vitest.config.*", "vitest.workspace.*", "vite.config.*"),
    package_keys=("babel",),
    mocks=True,
)

VITEST = NodeRunner(
    "vitest",
    FILES,
    None,
    'npx vitest run --reporter=default --reporter=junit --outputFile.junit="$WAIVER_JUNIT"',
    title_separator=" > ",
)
