"""Write a realistic, seeded replay set for the benchmark.

A set is a small repository the gate can run on:

    reports/run-1.xml .. run-N.xml   pytest --junitxml output, one file per replay
    properties.xml                   a passing property suite
    fixtures/*.json, fixture.lock    small fixtures and their GNU sha256sum lock
    known-tests.txt                  the registry: every id expected to run
    tests/pkg_*/test_mod_*.py        empty module files, so ids follow the pytest rule
    set.json                         parameters and the expected outcome, written last

Ids follow the pytest rule because the module files exist:
`tests.pkg_3.test_mod_7` + `test_case_4[param-2]` is
`tests/pkg_3/test_mod_7.py::test_case_4[param-2]`
and a class-based case is `tests/pkg_3/test_mod_7.py::TestGroup::test_method_1[param-0]`.
A test skipped in every replay is left out of the registry, as a registry written from
reports leaves it out, so it is listed as skipped and does not block.

Usage: python bench/generate.py --tests 100000 --out bench/data/t100000
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from failure_text import failure_xml, system_out_xml

GENERATOR_VERSION = 2
PROPERTY_MODULE = "tests/properties/test_props.py"
MODULE_TEXT = '"""Generated benchmark module."""\n'
DEFAULT_SEED = 6
REPLAYS = 5
TESTS_PER_MODULE = 100
MODULES_PER_PACKAGE = 20
FUNCTION_CASES_PER_MODULE = 80
PARAMS_PER_FUNCTION = 5
FIXTURE_FILES = 300
PROPERTY_CASES = 40

FAIL_SHARE = 0.02
SKIP_SHARE = 0.01
FLIP_SHARE = 0.005
SYSTEM_OUT_SHARE = 0.03
ERROR_SHARE_OF_FAILS = 0.1

MANIFEST = "set.json"


class Kind(Enum):
    """How a test behaves across the replays."""

    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"
    FLIP = "flip"


@dataclass(frozen=True)
class Test:
    """One generated test id and its behaviour in every replay."""

    module_path: str
    classname: str
    name: str
    test_id: str
    kind: Kind
    failing_replays: frozenset[int]
    failure_xml: str
    system_out_xml: str


def seeded(label: str) -> random.Random:
    """A generator seeded by a string: the same set on every machine and Python run."""
    return random.Random(label)  # noqa: S311 -- reproducible data, not secrets


def _case_names(index_in_module: int) -> tuple[str, str]:
    """(class suffix, test name) for the n-th case of a module."""
    param = f"param-{index_in_module % PARAMS_PER_FUNCTION}"
    if index_in_module < FUNCTION_CASES_PER_MODULE:
        return "", f"test_case_{index_in_module // PARAMS_PER_FUNCTION}[{param}]"
    method = (index_in_module - FUNCTION_CASES_PER_MODULE) // PARAMS_PER_FUNCTION
    return ".TestGroup", f"test_method_{method}[{param}]"


def _module(index: int) -> tuple[str, str]:
    """(dotted module name, module path) of the n-th module."""
    package, module = divmod(index, MODULES_PER_PACKAGE)
    dotted = f"tests.pkg_{package}.test_mod_{module}"
    return dotted, dotted.replace(".", "/") + ".py"


def _flip_pattern(rng: random.Random) -> frozenset[int]:
    """Replays (1-based) in which a flipping test fails: at least one, never all."""
    while True:
        failing = frozenset(r for r in range(1, REPLAYS + 1) if rng.random() < 0.5)
        if 0 < len(failing) < REPLAYS:
            return failing


def plan_tests(tests: int, seed: int) -> Iterator[Test]:
    """Every test of the set, in report order, with its seeded behaviour."""
    rng = seeded(f"waiver-bench-{seed}-{tests}")
    for index in range(tests):
        module_dotted, module_path = _module(index // TESTS_PER_MODULE)
        class_suffix, name = _case_names(index % TESTS_PER_MODULE)
        classname = module_dotted + class_suffix
        test_id = (
            f"{module_path}::{class_suffix[1:]}::{name}"
            if class_suffix
            else f"{module_path}::{name}"
        )
        draw = rng.random()
        failure = ""
        failing: frozenset[int] = frozenset()
        if draw < FAIL_SHARE:
            kind = Kind.FAIL
            failing = frozenset(range(1, REPLAYS + 1))
        elif draw < FAIL_SHARE + SKIP_SHARE:
            kind = Kind.SKIP
        elif draw < FAIL_SHARE + SKIP_SHARE + FLIP_SHARE:
            kind = Kind.FLIP
            failing = _flip_pattern(rng)
        else:
            kind = Kind.PASS
        if failing:
            is_error = kind is Kind.FAIL and rng.random() < ERROR_SHARE_OF_FAILS
            failure = failure_xml(rng, module_path, name, is_error=is_error, fixtures=FIXTURE_FILES)
        output = system_out_xml(rng, name) if rng.random() < SYSTEM_OUT_SHARE else ""
        yield Test(module_path, classname, name, test_id, kind, failing, failure, output)


def _case_xml(test: Test, replay: int, rng: random.Random) -> tuple[str, str]:
    """(outcome, `<testcase>` element) of one test in one replay."""
    seconds = rng.randrange(1, 900) / 1000
    head = f'<testcase classname="{test.classname}" name="{test.name}" time="{seconds:.3f}"'
    if test.kind is Kind.SKIP:
        reason = "requires the linux-arm64 runner"
        skipped = (
            f'<skipped type="pytest.skip" message="{reason}">'
            f"/ci/work/{test.module_path}:12: {reason}</skipped>"
        )
        return "skip", f"{head}>{skipped}</testcase>"
    children = test.failure_xml if replay in test.failing_replays else ""
    children += test.system_out_xml
    outcome = "fail" if replay in test.failing_replays else "pass"
    return outcome, f"{head}>{children}</testcase>" if children else f"{head} />"


def _write_report(
    path: Path, cases: list[str], counts: dict[str, int], errors: int, replay: int
) -> None:
    """Write one replay file in the exact shape of pytest's junitxml output."""
    suite = (
        f'<testsuite name="pytest" errors="{errors}" failures="{counts["fail"] - errors}" '
        f'skipped="{counts["skip"]}" tests="{len(cases)}" time="{len(cases) * 0.011:.3f}" '
        f'timestamp="2026-01-0{replay}T08:00:00.000000+00:00" hostname="ci-runner-{replay}">'
    )
    with path.open("w", encoding="utf-8") as out:
        out.write('<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests">')
        out.write(suite)
        for start in range(0, len(cases), 10_000):
            out.write("".join(cases[start : start + 10_000]))
        out.write("</testsuite></testsuites>")


def _write_reports(root: Path, plan: list[Test], seed: int) -> dict[str, int]:
    """Write every replay; return the outcome count over all of them."""
    totals = {"pass": 0, "fail": 0, "skip": 0}
    reports = root / "reports"
    reports.mkdir()
    for replay in range(1, REPLAYS + 1):
        rng = seeded(f"waiver-bench-times-{seed}-{replay}")
        counts = {"pass": 0, "fail": 0, "skip": 0}
        errors = 0
        cases = []
        for test in plan:
            outcome, xml = _case_xml(test, replay, rng)
            counts[outcome] += 1
            errors += outcome == "fail" and test.failure_xml.startswith("<error")
            cases.append(xml)
        _write_report(reports / f"run-{replay}.xml", cases, counts, errors, replay)
        for outcome, count in counts.items():
            totals[outcome] += count
    return totals


def _write_properties(root: Path) -> None:
    """A passing property report, as `pytest tests/properties --junitxml` writes it."""
    cases = "".join(
        f'<testcase classname="tests.properties.test_props" name="test_property_{n}" '
        f'time="0.{n + 100}" />'
        for n in range(PROPERTY_CASES)
    )
    (root / "properties.xml").write_text(
        '<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests">'
        f'<testsuite name="pytest" errors="0" failures="0" skipped="0" tests="{PROPERTY_CASES}" '
        f'time="4.200" timestamp="2026-01-01T07:59:00.000000+00:00" hostname="ci-runner-0">'
        f"{cases}</testsuite></testsuites>",
        encoding="utf-8",
    )


def _write_fixtures(root: Path, seed: int) -> None:
    """A flat folder of small JSON fixtures and its lock in GNU sha256sum format, which
    also locks the property-suite module, as the gate requires."""
    rng = seeded(f"waiver-bench-fixtures-{seed}")
    folder = root / "fixtures"
    folder.mkdir()
    lock_lines = []
    for n in range(FIXTURE_FILES):
        document = {
            "id": n,
            "name": f"case {n}",
            "items": [
                {"sku": f"SKU-{rng.randrange(10**6):06d}", "qty": rng.randrange(1, 9)}
                for _ in range(rng.randrange(2, 30))
            ],
            "state": rng.choice(["ok", "pending", "stale"]),
        }
        data = (json.dumps(document, indent=2) + "\n").encode("utf-8")
        relative = f"fixtures/case_{n:03d}.json"
        (root / relative).write_bytes(data)
        lock_lines.append(f"{hashlib.sha256(data).hexdigest()}  {relative}\n")
    module = MODULE_TEXT.encode("utf-8")
    lock_lines.append(f"{hashlib.sha256(module).hexdigest()}  {PROPERTY_MODULE}\n")
    lock_lines.sort(key=lambda line: line[66:].encode("utf-8"))
    (root / "fixture.lock").write_text("".join(lock_lines), encoding="utf-8")


def _write_modules(root: Path, plan: list[Test]) -> None:
    """Create the module files that make ids follow the pytest rule."""
    paths = {test.module_path for test in plan}
    paths.add(PROPERTY_MODULE)
    for relative in sorted(paths):
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(MODULE_TEXT, encoding="utf-8")


def set_parameters(tests: int, seed: int) -> dict[str, int]:
    """What a set on disk must have been generated with to be reused."""
    return {
        "generator_version": GENERATOR_VERSION,
        "tests": tests,
        "replays": REPLAYS,
        "seed": seed,
    }


def read_manifest(root: Path) -> dict[str, object] | None:
    """The manifest of a complete set, or None when the set is absent or unfinished."""
    try:
        manifest: dict[str, object] = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    return manifest


def generate(root: Path, tests: int, seed: int = DEFAULT_SEED) -> dict[str, object]:
    """Write a fresh set into `root` (replacing what is there) and return its manifest."""
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    plan = list(plan_tests(tests, seed))
    occurrences = _write_reports(root, plan, seed)
    _write_properties(root)
    _write_fixtures(root, seed)
    _write_modules(root, plan)
    registry = sorted(test.test_id for test in plan if test.kind is not Kind.SKIP)
    (root / "known-tests.txt").write_text(
        "".join(f"{test_id}\n" for test_id in registry), encoding="utf-8"
    )
    kinds = {kind: sum(test.kind is kind for test in plan) for kind in Kind}
    manifest: dict[str, object] = {
        **set_parameters(tests, seed),
        "xml_bytes": sum(path.stat().st_size for path in (root / "reports").iterdir()),
        "expected_occurrences": occurrences,
        "expected_id_chars": REPLAYS
        * sum(len(test.classname) + 2 + len(test.name) for test in plan),
        "expected_counts": {
            "property_violation": 0,
            "fixture_drift": 0,
            "unknown_test": 0,
            "stable_pass": kinds[Kind.PASS],
            "unstable_assertion": kinds[Kind.FLIP],
            "stable_assertion_fail": kinds[Kind.FAIL],
        },
        "expected_skipped": kinds[Kind.SKIP],
    }
    # Written last: its presence marks a complete set.
    (root / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, required=True, help="number of test ids (T)")
    parser.add_argument("--out", type=Path, required=True, help="folder to write the set into")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = parser.parse_args()
    manifest = generate(args.out, args.tests, args.seed)
    print(json.dumps(manifest, indent=2))


if __name__ == "__main__":
    main()
