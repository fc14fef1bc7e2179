"""A folder of replays as per-test outcomes: which `run-<n>` entries it holds, and reading
them all, merged in replay order.

A replay that cannot be read is dropped whole and recorded, so its tests end up with a
short replay list. With more than one core, replays are read by forked worker processes
(`waiver.read.junit.schedule`); the tally is the same whatever the number of workers.
"""

from __future__ import annotations

import itertools
import os
import re
from dataclasses import dataclass
from operator import attrgetter

from waiver.errors import InputError
from waiver.read.forked import replay_workers
from waiver.read.junit.replay_reports import Limits, ReplayCases, ReplayError, ReplayReader, Tally
from waiver.read.junit.schedule import fresh_read, fresh_result, read_in, worker_pool
from waiver.read.junit.stream import FAIL, PASS
from waiver.read.junit.testid import TestIdRule

RUN_NAME = re.compile(r"run-([0-9]{1,6})(\.xml|\.log)?")


# The highest replay number: a name like run-999999.xml must not make the gate list (and
# write into the report) every replay below it as missing.
MAX_REPLAYS = 1000
# Where `waiver replay --properties-first` writes the property suite's report, beside the
# replays (and its output beside it, as `properties.log`).
PROPERTY_REPORT = "properties.xml"


@dataclass(frozen=True)
class ReplaySet:
    tally: Tally
    replay_count: int
    errors: tuple[ReplayError, ...]


def _replay_sources(
    reports: str, expected: int | None, others: frozenset[str], folder: str
) -> dict[int, str]:
    """The replays of a reports folder by number; anything else in it is an input error.

    Code under test can write into the folder it reports to, so a `run-<n>` beyond the
    declared count, or a name that is no replay, is refused rather than skipped or counted:
    an extra passing report would otherwise make a stable failure look unstable. Next to
    the replays only `run-<n>.log` (a replay's output, never read) and `others` may lie.
    """
    try:
        names = os.listdir(reports)
    except FileNotFoundError:
        raise InputError(reports, f"the {folder} folder does not exist") from None
    except NotADirectoryError:
        raise InputError(reports, f"the {folder} path is not a folder") from None
    found: dict[int, str] = {}
    logs: dict[int, str] = {}
    for name in sorted(names):
        if name in others:
            continue
        path = os.path.join(reports, name)
        match = RUN_NAME.fullmatch(name)
        if match is None:
            raise InputError(
                path, f"not a replay (run-<n>.xml or run-<n>/): unexpected in the {folder} folder"
            )
        number = int(match.group(1))
        if number < 1:
            raise InputError(path, f"replays are numbered from 1 (in the {folder} folder)")
        if number > MAX_REPLAYS:
            raise InputError(
                path, f"replays are numbered up to {MAX_REPLAYS} (in the {folder} folder)"
            )
        if expected is not None and number > expected:
            raise InputError(
                path, f"replay {number} is beyond the {expected} declared (in the {folder} folder)"
            )
        if match.group(2) == ".log":
            logs[number] = name
            continue
        if number in found:
            raise InputError(
                path, f"replay {number} is given twice ({found[number]}, in the {folder} folder)"
            )
        found[number] = name
    count = max([*found, expected or 0])
    for number, name in logs.items():
        if number > count:
            raise InputError(
                os.path.join(reports, name),
                f"a log of replay {number}, beyond the last replay (in the {folder} folder)",
            )
    return found


def report_and_log(reports: str, path: str) -> frozenset[str]:
    """The names a report at `path` and its `.log` take in the reports folder, if directly in it.

    `waiver replay --properties-first` writes the property report and its output there.
    """
    folder, name = os.path.split(os.path.abspath(path))
    if folder != os.path.abspath(reports):
        return frozenset()
    return frozenset({name, os.path.splitext(name)[0] + ".log"})


def read_replays(
    reports: str,
    rule: TestIdRule,
    limits: Limits,
    expected: int | None = None,
    shards: int | None = None,
    workers: int | None = None,
    others: frozenset[str] = frozenset(),
    folder: str = "reports",
) -> ReplaySet:
    """Every replay of a reports folder, merged in replay order.

    Replays are independent until they are merged, and reading is nearly all of the
    gate's time, so with more than one core they are parsed in worker processes. This
    process reads the first replay itself, so that the workers for the middle ones start
    out knowing its ids and send back little more than a byte per test. Meanwhile the
    last replays, one per other core, are read by workers forked before any id is known,
    so no core waits for the first replay. The middle ones are then read all at once:
    three replays on two cores take one and a half reads of time, not two. The merge stays
    here, in replay order, so the result is the same whatever the number of workers.

    `expected` is the declared replay count, and `others` the names besides the replays
    that may lie in the folder, and `folder` which folder it is (see `_replay_sources`).
    """
    sources = _replay_sources(reports, expected, others, folder)
    if not sources:
        raise InputError(
            reports,
            f"no replay found in the {folder} folder: expected run-1.xml … run-N.xml files "
            "or run-1/ … run-N/ folders",
        )
    count = max([*sources, expected or 0])
    tally = Tally()
    errors: list[ReplayError] = [
        ReplayError(number, f"run-{number}", "missing")
        for number in range(1, count + 1)
        if number not in sources
    ]
    reader = ReplayReader(reports, rule, limits, shards, tally)

    def merge(result: ReplayCases | ReplayError) -> None:
        if isinstance(result, ReplayError):
            errors.append(result)
        else:
            tally.add(result)

    cores = replay_workers() if workers is None else workers
    found = sorted(sources.items())
    # One fresh read per other core, but never of the only replay or of the first.
    last = len(found) - max(0, min(cores - 1, len(found) - 1))
    fresh = [fresh_read(reader, replay) for replay in found[last:]]
    first = iter(found[:last])
    # Replays are read here until one holds a test, the ids the middle workers start with.
    for replay in first:
        merge(reader(replay))
        if tally.ids:
            break
    middle = list(first)
    with worker_pool(reader, min(len(middle), 2 * cores) if cores > 1 else 0) as pool:
        results = read_in(pool, reader, middle)
        late = [fresh_result(read) for read in fresh]
        for result in itertools.chain(results, late):
            merge(result)
    errors.sort(key=attrgetter("replay"))
    ran = any(state & (PASS | FAIL) for states in tally.replays for state in states)
    if not ran:
        problem = f"no test case ran in any replay of the {folder} folder"
        if errors:
            problem += f" ({errors[0].source}: {errors[0].problem})"
        raise InputError(reports, problem)
    return ReplaySet(tally, count, tuple(errors))
