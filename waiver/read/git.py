"""Protected files read as blobs from a trusted git revision (the pull request's base).

A change can edit the fixtures *and* the lock, the registry and the freeze store; read
from the base commit, those cannot vouch for the change. git only ever reads objects
here: no checkout, no hooks, no filters, no replace refs, no system or global config,
and the `-c` options below switch off what a workspace's own `.git/config` could make
git run. A path must be a regular file (mode 100644) at that revision: symlinks and
submodules are refused. Whatever cannot be read fails closed.
"""

from __future__ import annotations

import functools
import os
import re
import stat
import subprocess
from collections.abc import Mapping

from waiver.errors import InputError, UsageError
from waiver.read.files import split_relative

SAFE_OPTIONS = (
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.fsmonitor=false",
    "-c", "core.untrackedCache=false",
    "-c", "core.sshCommand=ssh",
    "-c", "core.askPass=",
    "-c", "credential.helper=",
    "-c", "protocol.ext.allow=never",
    "-c", "protocol.git.allow=never",
    "-c", "submodule.recurse=false",
    "-c", "fetch.recurseSubmodules=false",
    "-c", "gc.auto=0",
    "-c", "maintenance.auto=false",
)  # fmt: skip
SAFE_ENVIRONMENT = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_NO_REPLACE_OBJECTS": "1",
    "GIT_LITERAL_PATHSPECS": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_ATTR_NOSYSTEM": "1",
}
REGULAR_FILE = "100644"
MODES = {
    "120000": "a symlink",
    "160000": "a submodule",
    "040000": "a folder",
    "100755": "an executable file",
}
# A full commit id, SHA-1 or SHA-256, as git prints it. A branch, tag or short id is never
# accepted: the change under review can push a ref or a commit that takes such a name over.
COMMIT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
TIMEOUT_SECONDS = 120
FETCH_ADVICE = (
    "check out with `fetch-depth: 0` (actions/checkout) or fetch the base commit "
    "before the gate runs"
)


def _git_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The caller's environment without any GIT_* variable, which could point git at
    another repository, object store or program, plus the settings that disarm config."""
    kept = {key: value for key, value in env.items() if not key.startswith("GIT_")}
    return {**kept, **SAFE_ENVIRONMENT}


class GitRevision:
    """The protected files as they are at `ref`, resolved to a commit on first use.

    Resolution is lazy so that a revision that cannot be read fails inside the gate,
    which then leaves a blocked report behind rather than a stale one.
    """

    def __init__(self, root: str, ref: str, env: Mapping[str, str]) -> None:
        self._root = root
        self._ref = ref
        self._env = _git_environment(env)
        self._read: dict[str, bytes] = {}

    def _git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        source = f"--trusted-ref {self._ref}"
        try:
            completed = subprocess.run(
                ["git", *SAFE_OPTIONS, *args],
                cwd=self._root,
                env=self._env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=TIMEOUT_SECONDS,
                check=False,
            )
        except FileNotFoundError:
            raise InputError(
                source, "git is not installed, so the revision cannot be read"
            ) from None
        except subprocess.TimeoutExpired:
            raise InputError(
                source, f"git {args[0]} took longer than {TIMEOUT_SECONDS} s"
            ) from None
        if check and completed.returncode != 0:
            raise InputError(source, f"git {args[0]} failed: {_said(completed.stderr)}")
        return completed

    def _resolve(self, name: str) -> str | None:
        completed = self._git("rev-parse", "--verify", "--quiet", f"{name}^{{commit}}", check=False)
        if completed.returncode != 0:
            return None
        return completed.stdout.decode("ascii").strip()

    @functools.cached_property
    def commit(self) -> str:
        """The commit, checked to exist as one, fetched once from `origin` if missing."""
        source = f"--trusted-ref {self._ref}"
        if not COMMIT_ID.fullmatch(self._ref):
            raise UsageError(
                f"{source}: not a full commit id (40 or 64 lowercase hex digits); a branch, "
                "tag or short id could be taken over by the change under review"
            )
        inside = self._git("rev-parse", "--is-inside-work-tree", check=False)
        if inside.returncode != 0:
            raise InputError(source, f"{self._root} is not inside a git clone")
        commit = self._resolve(self._ref)
        if commit is not None:
            return _named(commit, source, self._ref)
        fetched = self._git(
            "fetch",
            "--quiet",
            "--no-tags",
            "--depth=1",
            # Given here, it wins over a remote.origin.uploadpack command in the config.
            "--upload-pack=git-upload-pack",
            "origin",
            self._ref,
            check=False,
        )
        commit = self._resolve("FETCH_HEAD") if fetched.returncode == 0 else None
        if commit is None:
            raise InputError(
                source,
                f"the revision is not in this clone and fetching it from origin failed "
                f"({_said(fetched.stderr)}); {FETCH_ADVICE}",
            )
        return _named(commit, source, self._ref)

    @functools.cached_property
    def _prefix(self) -> str:
        """Where the gate's root sits inside the repository, as git spells it."""
        return self._git("rev-parse", "--show-prefix").stdout.decode("utf-8").rstrip("\n")

    def _repository_path(self, path: str) -> str:
        """`path` (as given on the command line) relative to the repository's top level.

        Worked out from the names alone: a symlink in the working tree must not get to
        choose which blob of the trusted revision is read.
        """
        relative = os.path.relpath(os.path.abspath(path), os.path.abspath(self._root))
        if relative == ".." or relative.startswith("../") or os.path.isabs(relative):
            raise InputError(path, "a protected file must lie inside the repository root")
        repository_path = self._prefix + relative.replace(os.sep, "/")
        split_relative(repository_path, path)
        return repository_path

    @property
    def description(self) -> str:
        return f"trusted revision {self.commit}"

    @property
    def revision(self) -> str:
        return self.commit

    def read(self, path: str, limit: int) -> bytes:
        commit = self.commit
        repository_path = self._repository_path(path)
        listing = self._git("ls-tree", "-z", "-l", "--full-tree", commit, "--", repository_path)
        entry = _entry(listing.stdout, repository_path)
        where = f"at trusted revision {commit}"
        if entry is None:
            raise InputError(path, f"{repository_path} does not exist {where}")
        mode, kind, blob, size = entry
        if mode != REGULAR_FILE or kind != "blob":
            found = MODES.get(mode, f"mode {mode}")
            raise InputError(path, f"{repository_path} is {found} {where}, not a regular file")
        if size > limit:
            raise InputError(
                path, f"{repository_path} {where} is larger than the cap of {limit} bytes"
            )
        data = self._git("cat-file", "blob", blob).stdout
        if len(data) != size:
            raise InputError(
                path, f"{repository_path} {where}: git returned {len(data)} of {size} bytes"
            )
        self._read[path] = data
        return data

    def changes(self) -> dict[str, str]:
        """Each protected file read so far whose working-tree bytes differ from the
        trusted blob: `modified`, `deleted`, or `not a regular file`."""
        found = {}
        for path, trusted in self._read.items():
            change = working_tree_change(path, trusted)
            if change is not None:
                found[path] = change
        return found


def working_tree_change(path: str, trusted: bytes) -> str | None:
    """How the file at `path` in the working tree differs from `trusted`, if it does."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return "deleted"
    except OSError:
        return "not a regular file"
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return "not a regular file"
    with os.fdopen(fd, "rb") as stream:
        current = stream.read(len(trusted) + 1)
    return None if current == trusted else "modified"


def _named(commit: str, source: str, ref: str) -> str:
    """`commit`, when it is the commit the id names rather than one a tag object points to."""
    if commit != ref:
        raise InputError(source, f"names a tag object (of commit {commit}), not a commit")
    return commit


def _entry(listing: bytes, path: str) -> tuple[str, str, str, int] | None:
    """The one `ls-tree -l` record for exactly `path`: mode, type, object id and size."""
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        if name.decode("utf-8", "surrogateescape") != path:
            continue
        mode, kind, blob, size = meta.decode("ascii").split()
        # A submodule has no size ("-"); its mode refuses it before the size matters.
        return mode, kind, blob, int(size) if size.isdigit() else 0
    return None


def _said(stderr: bytes, limit: int = 300) -> str:
    text = " ".join(stderr.decode("utf-8", "replace").split())
    return (text[:limit] + "…") if len(text) > limit else (text or "no message")
