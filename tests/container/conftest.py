"""What the act tests of this folder share: a runner that can run at all, and a registry
on 127.0.0.1 to push images to and pull them from by digest."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from helpers.act_support import act_missing_reason

REGISTRY = Path("/usr/bin/docker-registry")


@pytest.fixture(scope="session")
def act_ready() -> None:
    reason = act_missing_reason()
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the act tests cannot run in CI: {reason}")
        pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def local_registry(act_ready: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Debian's docker-registry on a free loopback port, for this session alone."""
    if not REGISTRY.is_file():
        reason = f"{REGISTRY} is missing (run: bash .ci/provision-docker.sh)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    folder = tmp_path_factory.mktemp("registry")
    address = f"127.0.0.1:{free_port()}"
    config = folder / "config.yml"
    config.write_text(
        yaml.safe_dump(
            {
                "version": 0.1,
                "storage": {"filesystem": {"rootdirectory": str(folder / "data")}},
                "http": {"addr": address},
            }
        )
    )
    server = subprocess.Popen(
        [str(REGISTRY), "serve", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=(folder / "registry.log").open("w"),
    )
    try:
        for _ in range(100):
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", int(address.rsplit(":", 1)[1]))) == 0:
                    break
            time.sleep(0.1)
        else:
            pytest.fail("docker-registry did not listen: " + (folder / "registry.log").read_text())
        yield address
    finally:
        server.terminate()
        server.wait(timeout=30)
