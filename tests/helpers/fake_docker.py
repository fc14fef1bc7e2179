"""A stand-in for `docker` on PATH, for running the action's scripts without an engine.

`docker build` is recorded and succeeds (or exits FAKE_DOCKER_BUILD_EXIT), writing a made-up
image ID to its `--iidfile`. `docker pull` succeeds (or exits FAKE_DOCKER_PULL_EXIT) and
makes the reference known to `docker image inspect`, which knows no other image but those
named in FAKE_DOCKER_IMAGES (space-separated) and prints an ID derived from the name. `docker run`
checks nothing itself; it records its arguments and runs the image's entry point,
entrypoint.py, as the container would: with only the `--env` variables, in the
`--workdir`, and with every container path in them (and in its arguments) mapped through
the `--mount`s to the host folder behind it; `--entrypoint python3` runs this Python on the
arguments instead. FAKE_DOCKER_RUN_EXIT makes it fail before running anything.
Each call is appended as one JSON line to FAKE_DOCKER_LOG.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VALUED = {"--network", "--cap-drop", "--security-opt", "--tmpfs", "--user", "--mount",
          "--workdir", "--env", "-e", "-w", "--entrypoint"}  # fmt: skip


def parse_run(args: list[str]) -> tuple[dict[str, list[str]], list[str]]:
    """Options (each a list of values, '' for a bare flag) and the image with its arguments."""
    options: dict[str, list[str]] = {}
    index = 0
    while index < len(args) and args[index].startswith("-"):
        name, equals, value = args[index].partition("=")
        if name in VALUED and not equals:
            index += 1
            value = args[index]
        options.setdefault(name, []).append(value)
        index += 1
    return options, args[index:]


def mounts(options: dict[str, list[str]]) -> list[tuple[str, str, bool]]:
    found = []
    for spec in options.get("--mount", []):
        fields = dict(part.partition("=")[::2] for part in spec.split(","))
        found.append((fields["target"], fields["source"], "readonly" in spec.split(",")))
    return sorted(found, key=lambda mount: -len(mount[0]))


def to_host(value: str, table: list[tuple[str, str, bool]]) -> str:
    for target, source, _ in table:
        if value == target or value.startswith(target + "/"):
            return source + value[len(target) :]
    return value


BUILT_ID = "sha256:" + "b" * 64


def install(folder: Path) -> Path:
    """`folder`/bin, made here, whose `docker` runs this stand-in with this Python."""
    bin_folder = folder / "bin"
    bin_folder.mkdir()
    (bin_folder / "docker").write_text(
        f'#!/bin/sh\nexec "{sys.executable}" "{Path(__file__).resolve()}" "$@"\n'
    )
    (bin_folder / "docker").chmod(0o755)
    return bin_folder


def image_id(reference: str) -> str:
    return "sha256:" + hashlib.sha256(reference.encode()).hexdigest()


def pulled_file() -> Path:
    return Path(os.environ["FAKE_DOCKER_LOG"] + ".pulled")


def known_images() -> set[str]:
    pulled = pulled_file().read_text().split() if pulled_file().exists() else []
    return {*os.environ.get("FAKE_DOCKER_IMAGES", "").split(), *pulled}


def build(args: list[str]) -> int:
    status = int(os.environ.get("FAKE_DOCKER_BUILD_EXIT", "0"))
    if status == 0:
        Path(args[args.index("--iidfile") + 1]).write_text(BUILT_ID)
    return status


def pull(args: list[str]) -> int:
    status = int(os.environ.get("FAKE_DOCKER_PULL_EXIT", "0"))
    if status != 0:
        print("Error response from daemon: no route to the registry", file=sys.stderr)
        return status
    with pulled_file().open("a", encoding="utf-8") as stream:
        stream.write(args[-1] + "\n")
    return 0


def inspect(args: list[str]) -> int:
    reference = args[-1]
    if reference not in known_images():
        return 1
    print(image_id(reference))
    return 0


def main() -> int:
    args = sys.argv[1:]
    with open(os.environ["FAKE_DOCKER_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps({"argv": args}) + "\n")
    if args[:1] == ["build"]:
        return build(args)
    if args[:1] == ["pull"]:
        return pull(args)
    if args[:2] == ["image", "inspect"]:
        return inspect(args)
    assert args[:1] == ["run"], args
    if "FAKE_DOCKER_RUN_EXIT" in os.environ:
        return int(os.environ["FAKE_DOCKER_RUN_EXIT"])
    options, image = parse_run(args[1:])
    table = mounts(options)
    env = {}
    for entry in options.get("--env", []) + options.get("-e", []):
        name, equals, value = entry.partition("=")
        if equals:
            env[name] = to_host(value, table)
        elif name in os.environ:  # `--env NAME` hands over the caller's value, as docker does
            env[name] = os.environ[name]
    workdir = to_host(options["--workdir"][0], table) if "--workdir" in options else None
    # The image's entry point, or `--entrypoint python3` followed by its arguments.
    program = (
        [sys.executable]
        if options.get("--entrypoint") == ["python3"]
        else [
            sys.executable,
            str(REPO / "entrypoint.py"),
        ]
    )
    arguments = []
    for argument in image[1:]:
        flag, equals, value = argument.partition("=")
        arguments.append(f"{flag}={to_host(value, table)}" if equals else to_host(argument, table))
    completed = subprocess.run(
        [*program, *arguments],
        cwd=workdir,
        env={**env, "PATH": os.environ["PATH"], "PYTHONPATH": str(REPO)},
        check=False,
    )
    return completed.returncode


if __name__ == "__main__":
    sys.exit(main())
