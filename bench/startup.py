"""Measure how long the GitHub Action takes to start, side by side, in one run.

On a copy of the bundled example (replayed once, committed as the pull request's base),
with the action's files copied beside it, it times:

- the image step (action/build-image.sh) on each of its paths: the released image pulled
  by digest from a Debian `docker-registry` on 127.0.0.1, after the image was removed from
  the engine; the fallback build from the cached base, with the layers above the base made
  stale first (a changed requirements file); and both warm (image already present);
- the gate step (action/run-gate.sh) in that image, and `waiver gate` itself on the host,
  which is the gate's own work;
- the whole action under act (jobs on this machine), warm, with a digest recorded.

Each is run `--repeat` times, interleaved; the median and the range are reported, and the
section "Action start-up" of bench/RESULTS.md is replaced with the table.

Usage: python bench/startup.py [--repeat 3] [--base waiver-base:bookworm] [--out PATH]
Needs a Docker engine, /usr/bin/docker-registry and act (see .ci/provision-docker.sh).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sections import START_UP, section_of
from sections import write_section as replace_section

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
DOCKER = "/usr/bin/docker"
REGISTRY = "/usr/bin/docker-registry"
ACT = Path(sys.executable).parent / "act"
ACTION_FILES = ("action.yml", "action", "Dockerfile", "requirements", "waiver", "entrypoint.py")
COMMITTED = ("fixtures", "tests", "fixture.lock", "known-tests.txt", "freezes.json",
             "slugify.py", "pytest.ini")  # fmt: skip
SECTION = START_UP
TARGETS = {
    "image step: digest pull": 5.0,
    "image step: fallback build": 10.0,
    "image step: warm (digest present)": 0.5,
    "image step: warm (build cached)": 0.5,
}
OVERHEAD_TARGET = 3.0
GATE_INPUTS = {
    "INPUT_REPORTS": "reports",
    "INPUT_PROPERTIES": "properties.xml",
    "INPUT_KNOWN_TESTS": "known-tests.txt",
    "INPUT_FREEZES": "freezes.json",
}
WORKFLOW = """\
name: gate
on: pull_request
jobs:
  gate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683
      - uses: ./.waiver-action
        with:
          reports: reports
          properties: properties.xml
          known-tests: known-tests.txt
          freezes: freezes.json
"""
STAND_IN = """\
name: upload-artifact stand-in
description: Does nothing; the benchmark needs no artifact.
runs:
  using: composite
  steps:
    - shell: bash
      run: "true"
"""


def run(command: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    completed = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    if completed.returncode != 0:
        raise SystemExit(
            f"{command[0]} failed: {completed.stdout[-2000:]}{completed.stderr[-2000:]}"
        )
    return completed.stdout


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def git(cwd: Path, *args: str) -> str:
    return run(["git", "-c", "user.name=b", "-c", "user.email=b@invalid", *args], cwd=cwd).strip()


def prepare(work: Path) -> tuple[Path, str]:
    """The example, replayed and committed, with the action copied into .waiver-action."""
    example = work / "demo"
    shutil.copytree(REPO / "examples" / "demo", example, ignore=shutil.ignore_patterns("run.sh"))
    env = {**os.environ, "DEMO_COUNTER": str(example / ".demo-counter")}
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    subprocess.run([*pytest, "tests/properties", "--junitxml=properties.xml"], cwd=example,
                   env=env, capture_output=True, check=False)  # fmt: skip
    for replay in range(1, 6):
        subprocess.run([*pytest, "tests/assertions", f"--junitxml=reports/run-{replay}.xml"],
                       cwd=example, env=env, capture_output=True, check=False)  # fmt: skip
    git(example, "init", "--quiet")
    git(example, "add", "--", *COMMITTED)
    git(example, "commit", "--quiet", "-m", "base")
    action = example / ".waiver-action"
    action.mkdir()
    for name in ACTION_FILES:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, action / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, action / name)
    (example / ".github" / "workflows").mkdir(parents=True)
    (example / ".github" / "workflows" / "gate.yml").write_text(WORKFLOW)
    return example, git(example, "rev-parse", "HEAD")


@contextmanager
def local_registry(folder: Path) -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = folder / "registry.yml"
    config.write_text(
        f"version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: {folder / 'registry'}\n"
        f"http:\n  addr: 127.0.0.1:{port}\n"
    )
    server = subprocess.Popen([REGISTRY, "serve", str(config)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        for _ in range(100):
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        yield f"127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=30)


class Bench:
    def __init__(self, work: Path, example: Path, base_sha: str, base_image: str) -> None:
        self.work = work
        self.example = example
        self.base_sha = base_sha
        self.base_image = base_image
        self.action = example / ".waiver-action"
        self.built: set[str] = set()

    def step_env(self, **extra: str) -> dict[str, str]:
        temp = Path(tempfile.mkdtemp(dir=self.work))
        (temp / "output").touch()
        (temp / "summary").touch()
        return {
            **os.environ,
            "GITHUB_ACTION_PATH": str(self.action),
            "GITHUB_WORKSPACE": str(self.example),
            "GITHUB_OUTPUT": str(temp / "output"),
            "GITHUB_STEP_SUMMARY": str(temp / "summary"),
            "RUNNER_TEMP": str(temp),
            **extra,
        }

    def image_step(self, expected: str) -> tuple[float, str]:
        """The image step's time and the image it chose; `expected` must be in its log."""
        env = self.step_env(INPUT_BASE_IMAGE=self.base_image)
        start = time.perf_counter()
        log = run(["bash", str(self.action / "action" / "build-image.sh")], env=env)
        seconds = time.perf_counter() - start
        if expected not in log:
            raise SystemExit(f"the image step did not take the path '{expected}': {log}")
        image = log.split("waiver: gate image ", 1)[1].split(",", 1)[0]
        return seconds, image

    def gate_step(self, image: str) -> float:
        env = self.step_env(WAIVER_IMAGE=image, INPUT_TRUSTED_REF=self.base_sha, **GATE_INPUTS)
        return timed(lambda: run(["bash", str(self.action / "action" / "run-gate.sh")],
                                 cwd=self.example, env=env))  # fmt: skip

    def gate_on_host(self) -> float:
        command = [sys.executable, "-m", "waiver", "gate", "--root", str(self.example),
                   "--reports", "reports", "--properties", "properties.xml",
                   "--known-tests", "known-tests.txt", "--freezes", "freezes.json",
                   "--trusted-ref", self.base_sha, "--out", str(self.work / "host.json")]  # fmt: skip
        env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
        env["PYTHONPATH"] = str(REPO)
        return timed(lambda: subprocess.run(command, cwd=self.example, env=env,
                                            capture_output=True, check=False))  # fmt: skip

    def whole_action(self) -> float:
        event = self.work / "event.json"
        event.write_text(json.dumps({"pull_request": {"base": {"sha": self.base_sha}}}))
        stand_in = self.work / "upload-artifact"
        stand_in.mkdir(exist_ok=True)
        (stand_in / "action.yml").write_text(STAND_IN)
        pinned = "actions/upload-artifact@ea165f8d65b6e75b540449e92b4886f43607fa02"
        home = Path(tempfile.mkdtemp(dir=self.work))
        command = [str(ACT), "pull_request", "--eventpath", str(event),
                   "-P", "ubuntu-latest=-self-hosted",
                   "--local-repository", f"{pinned}={stand_in}"]  # fmt: skip
        # The example blocks (exit 1); only the time matters here.
        return timed(lambda: subprocess.run(command, cwd=self.example,
                                            env={**os.environ, "HOME": str(home)},
                                            capture_output=True, check=False))  # fmt: skip

    def record(self, reference: str | None) -> None:
        digest_file = self.action / "action" / "image-digest"
        if reference is None:
            digest_file.unlink(missing_ok=True)
        else:
            digest_file.write_text(reference + "\n")

    def stale_layers(self, round_number: int) -> None:
        """Change the requirements file's bytes (a comment), so every layer above the base
        is rebuilt: what a runner with only the base image cached does."""
        requirements = self.action / "requirements" / "runtime.txt"
        text = (REPO / "requirements" / "runtime.txt").read_text()
        requirements.write_text(f"{text}# benchmark round {round_number} {time.time_ns()}\n")

    def remove(self, image: str, reference: str) -> None:
        subprocess.run([DOCKER, "rmi", reference, image], capture_output=True, check=False)


def build(context: Path, base_image: str, iidfile: Path) -> str:
    run([DOCKER, "build", "--quiet", "--iidfile", str(iidfile),
         "--build-arg", f"BASE={base_image}", str(context)])  # fmt: skip
    return iidfile.read_text().strip()


def push(registry: str, image: str) -> str:
    tagged = f"{registry}/waiver:bench"
    run([DOCKER, "tag", image, tagged])
    run([DOCKER, "push", "--quiet", tagged])
    digests = json.loads(run([DOCKER, "image", "inspect", "--format", "{{json .RepoDigests}}",
                              tagged]))  # fmt: skip
    run([DOCKER, "rmi", tagged])
    return str(next(d for d in digests if d.startswith(f"{registry}/waiver@")))


def measure(repeat: int, base_image: str) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {}

    def add(name: str, seconds: float) -> None:
        times.setdefault(name, []).append(seconds)

    with tempfile.TemporaryDirectory(prefix="waiver-startup-") as folder:
        work = Path(folder)
        example, base_sha = prepare(work)
        bench = Bench(work, example, base_sha, base_image)
        with local_registry(work) as registry:
            image = build(bench.action, base_image, work / "iid")
            reference = push(registry, image)
            for round_number in range(1, repeat + 1):
                bench.record(reference)
                bench.remove(image, reference)
                add("image step: digest pull", bench.image_step("(pulled by digest)")[0])
                seconds, pulled = bench.image_step("(already on this machine)")
                add("image step: warm (digest present)", seconds)
                add("gate step", bench.gate_step(pulled))
                add("gate's own work (`waiver gate` on the host)", bench.gate_on_host())
                add("whole action under act, warm", bench.whole_action())
                bench.record(None)
                bench.stale_layers(round_number)
                seconds, fresh = bench.image_step("building the gate image")
                add("image step: fallback build", seconds)
                add(
                    "image step: warm (build cached)",
                    bench.image_step("building the gate image")[0],
                )
                if fresh != image:
                    subprocess.run([DOCKER, "rmi", fresh], capture_output=True, check=False)
    return times


def table(times: dict[str, list[float]]) -> list[str]:
    gate_own = statistics.median(times["gate's own work (`waiver gate` on the host)"])
    whole = statistics.median(times["whole action under act, warm"])
    lines = ["| measured | median (s) | min-max (s) | target | met |", "|---|---|---|---|---|"]
    for name, values in times.items():
        median = statistics.median(values)
        target = TARGETS.get(name)
        met = "—" if target is None else ("yes" if median <= target else "no")
        limit = "—" if target is None else f"≤ {target:g} s"
        lines.append(f"| {name} | {median:.2f} | {min(values):.2f}-{max(values):.2f} "
                     f"| {limit} | {met} |")  # fmt: skip
    overhead = whole - gate_own
    met = "yes" if overhead <= OVERHEAD_TARGET else "no"
    lines.append(f"| action overhead, warm (whole action minus gate's own work) | {overhead:.2f} | — "
                 f"| ≤ {OVERHEAD_TARGET:g} s | {met} |")  # fmt: skip
    return lines


def section(times: dict[str, list[float]], repeat: int, base_image: str) -> str:
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    return "\n".join(
        [
            SECTION,
            "",
            "Regenerate with `python bench/startup.py` (needs a Docker engine, Debian's "
            "`docker-registry` and act; `bash .ci/provision-docker.sh` installs them).",
            "",
            f"- Date: {now}; {os.cpu_count()} cores, {platform.system()} {platform.machine()}, "
            f"1-minute load average {load:.2f} at the end (the machine is shared)",
            f"- Repeats: {repeat}, interleaved; base image of the fallback build: `{base_image}`",
            "- Digest pull: the image and its tag are removed from the engine, then the image step "
            "pulls `127.0.0.1:PORT/waiver@sha256:…` from a Debian `docker-registry` on loopback. "
            "The base layer stays on the engine (other work on this machine uses it), so the pull "
            "moves the layers above it; a hosted runner also fetches the base layer.",
            "- Fallback build: no digest recorded, and the requirements file changed, so the pip "
            "layer and everything above the cached base is rebuilt (wheels from PyPI).",
            "- Warm: the same image step again with the image present.",
            "- Gate step: action/run-gate.sh on the example in that image; the gate's own work is "
            "`python -m waiver gate` on the host on the same inputs. The whole action is the "
            "composite action under act (`-P ubuntu-latest=-self-hosted`), digest recorded and "
            "image present; the overhead is its time minus the gate's own work.",
            "",
            *table(times),
            "",
        ]
    )


def start_up_section(document: str) -> str:
    """The start-up section of a results document: its heading to the next section, or ''."""
    return section_of(document, SECTION)


def write_section(out: Path, text: str) -> None:
    """Replace the start-up section of `out`, or append it; the rest is kept."""
    replace_section(out, SECTION, text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--base", default="waiver-base:bookworm")
    parser.add_argument("--out", type=Path, default=BENCH / "RESULTS.md")
    args = parser.parse_args()
    times = measure(args.repeat, args.base)
    text = section(times, args.repeat, args.base)
    print(text)
    write_section(args.out, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
