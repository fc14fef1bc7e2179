"""What a reviewer of a new or edited test is shown beside its row, in words: the named
kinds of an edit."""

from __future__ import annotations

from waiver.write.report_types import EditedTest


def edit_kinds(edited: EditedTest) -> list[str]:
    """The named kinds of an edit in words (`comparison loosened: ...`), or `edited` when
    it is of no named kind."""
    findings = edited.get("findings", [])
    if not findings:
        return ["edited"]
    return [f"{f['kind'].replace('_', ' ')}: {f['detail']}" for f in findings]
