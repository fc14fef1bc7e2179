"""Two commits of a repository the test writes, read as the gate reads a change against its
trusted revision."""

from __future__ import annotations

from pathlib import Path

from dulwich.repo import Repo

from helpers.support import git, write_tree
from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import CommitTree


def committed_change(root: Path, base: dict[str, str], change: dict[str, str]) -> Committed:
    """`base` committed under `root`, then `change` written over it and committed: the two
    commits' trees and the paths that differ between them."""
    git(root, "init", "--quiet")
    commits = []
    for files in (base, change):
        write_tree(root, dict(files))
        git(root, "add", "-A")
        git(root, "commit", "--quiet", "--allow-empty", "-m", "commit")
        commits.append(git(root, "rev-parse", "HEAD"))
    repository = Repo(str(root))
    trusted, head = (CommitTree(repository, repository[c.encode()].tree, "") for c in commits)
    changed = git(root, "diff", "--name-only", commits[0], commits[1]).split()
    return Committed(trusted, head, frozenset(changed))
