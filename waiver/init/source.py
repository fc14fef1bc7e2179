"""The waiver a written workflow pins: the repository and the commit it runs, from the flags
or from what pip recorded when it installed this waiver from GitHub with git."""

from __future__ import annotations

import json
import re
from importlib import metadata

from waiver.errors import UsageError

# OWNER/NAME as GitHub allows it: what `--waiver-repository` may name.
GITHUB_REPOSITORY_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}")
FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
GITHUB_URL = re.compile(r"https://github\.com/([^/]+/[^/]+?)(?:\.git)?/?")


def installed_source() -> tuple[str | None, str | None]:
    """OWNER/NAME and the commit of this waiver, when pip installed it from GitHub by git."""
    try:
        text = metadata.distribution("waiver").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None, None
    if text is None:
        return None, None
    try:
        direct = json.loads(text)
        match = GITHUB_URL.fullmatch(str(direct["url"]).removeprefix("git+"))
        commit = direct["vcs_info"]["commit_id"]
    except (ValueError, KeyError, TypeError):
        return None, None
    return (match.group(1) if match else None), (commit if isinstance(commit, str) else None)


def waiver_source(repository_flag: str | None, ref_flag: str | None) -> tuple[str, str]:
    """The waiver repository and commit the workflow pins: the flags, else the install's."""
    found_repository, found_ref = installed_source()
    repository = repository_flag or found_repository
    ref = ref_flag or found_ref
    if repository is None or ref is None:
        raise UsageError(
            "give --waiver-repository OWNER/NAME and --waiver-ref FULL_SHA: the waiver the "
            "workflow runs, pinned by commit (known by itself only when pip installed waiver "
            "from GitHub with git)"
        )
    if not GITHUB_REPOSITORY_NAME.fullmatch(repository):
        raise UsageError(f"--waiver-repository must be OWNER/NAME, got {repository!r}")
    if not FULL_SHA.fullmatch(ref):
        raise UsageError(f"--waiver-ref must be a full commit id (40 hex digits), got {ref!r}")
    return repository, ref
