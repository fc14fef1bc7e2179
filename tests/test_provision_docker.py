"""`.ci/provision-docker.sh` takes the Debian archive and the proxy debootstrap uses from
the host's apt configuration, as apt reads it, and says when the host has none.

Its functions run in bash with `APT_CONFIG` naming sources the test writes; building a
base image with it is checked by hand, into a tag of its own (docs/development.md,
Checks).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers.support import REPO

SCRIPT = REPO / ".ci" / "provision-docker.sh"

pytestmark = pytest.mark.skipif(shutil.which("apt-get") is None, reason="needs apt")


def apt_config(folder: Path, sources: dict[str, str], extra: str = "") -> Path:
    """An apt configuration whose sources are `sources` (file name: text) alone."""
    parts = folder / "sources.list.d"
    parts.mkdir(parents=True)
    for name, text in sources.items():
        (folder / name if name == "sources.list" else parts / name).write_text(text)
    config = folder / "apt.conf"
    config.write_text(
        f'Dir::Etc::SourceList "{folder / "sources.list"}";\n'
        f'Dir::Etc::SourceParts "{parts}";\n{extra}'
    )
    return config


def run(function: str, config: Path, env: dict[str, str] | None = None) -> tuple[str, str]:
    """`function` of the script, sourced in bash under the apt configuration `config`."""
    environment = {k: v for k, v in os.environ.items() if k.lower() != "http_proxy"}
    completed = subprocess.run(
        ["bash", "-c", f'source "{SCRIPT}"; {function}'],
        env={**environment, "APT_CONFIG": str(config), **(env or {})},
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return completed.stdout, completed.stderr


@pytest.mark.parametrize(
    ("sources", "mirror"),
    [
        (
            {"sources.list": "deb [signed-by=/k.gpg arch=amd64] http://one.example/debian "
                             "bookworm main contrib\n"},
            "http://one.example/debian/",
        ),
        (
            {"debian.sources": "Types: deb-src deb\nURIs: http://two.example/debian "
                               "http://three.example/debian\nSuites: bookworm-updates bookworm\n"
                               "Components: main\n"},
            "http://two.example/debian/",
        ),
        (
            {"sources.list": "deb http://security.example/debian-security bookworm-security main\n"
                             "deb-src http://src.example/debian bookworm main\n",
             "more.sources": "Types: deb\nURIs: http://four.example/debian\nSuites: bookworm\n"
                             "Components: main\n"},
            "http://four.example/debian/",
        ),
    ],
    ids=["one-line-with-options", "deb822-several-uris", "the-suite-in-another-file"],
)  # fmt: skip
def test_debootstrap_takes_the_archive_apt_uses_for_the_suite(
    tmp_path: Path, sources: dict[str, str], mirror: str
) -> None:
    assert run("debian_mirror", apt_config(tmp_path, sources)) == (f"{mirror}\n", "")


def test_a_host_without_a_source_of_the_suite_gets_debians_redirector_and_says_so(
    tmp_path: Path,
) -> None:
    config = apt_config(tmp_path, {"sources.list": "deb http://x.example/ubuntu noble main\n"})
    assert run("debian_mirror", config) == (
        "http://deb.debian.org/debian\n",
        "provision-docker: apt has no source of bookworm here; debootstrap uses "
        "http://deb.debian.org/debian\n",
    )


def test_debootstrap_goes_through_apts_proxy_unless_the_environment_names_one(
    tmp_path: Path,
) -> None:
    config = apt_config(tmp_path, {}, 'Acquire::http::Proxy "http://proxy.example:3128";\n')
    shown = 'carry_apt_proxy; printf "[%s]\\n" "${http_proxy:-}"'
    assert run(shown, config) == (
        "provision-docker: debootstrap goes through apt's proxy http://proxy.example:3128\n"
        "[http://proxy.example:3128]\n",
        "",
    )
    assert run(shown, config, {"http_proxy": "http://mine.example:8080"}) == (
        "[http://mine.example:8080]\n",
        "",
    )
    assert run(shown, apt_config(tmp_path / "none", {})) == ("[]\n", "")
