"""The summary's notes on where the gate read its inputs and what the change did to them:
no registry, the working tree's files, the trusted revision, an edited harness, a reach
into the runner that an approval admitted, an edited lock. Each is a paragraph or nothing.
"""

from __future__ import annotations

from waiver.decide.policy import NO_REGISTRY
from waiver.write.summary.budget import Budget
from waiver.write.summary.summary_facts import Facts, paragraph
from waiver.write.words.escape import md_code
from waiver.write.words.why import locked_name

NAMED = 3  # harness files the harness paragraph names; the drift table lists every one


def registry_note(out: Budget, facts: Facts) -> int:
    registry = facts.report["registry"]
    if registry is None or registry["used"]:
        return 0
    if facts.report["policy"]["registry"] == NO_REGISTRY:
        return paragraph(
            out,
            "**The policy file says `registry: none`: new and vanished tests are not detected.**",
        )
    return paragraph(
        out, "**No known-tests registry was given: new and vanished tests are not detected.**"
    )


def working_tree_note(out: Budget, facts: Facts) -> int:
    fixtures = facts.report["fixtures"]
    if fixtures is None or fixtures["lock_source"] != "working tree":
        return 0
    return paragraph(
        out,
        "**The lock, registry and freeze store were read from the working tree, which the "
        "change itself can edit.** Pass a trusted revision to read them from the base commit.",
    )


def trusted_revision_note(out: Budget, facts: Facts) -> int:
    revision = facts.report["trusted_revision"]
    if revision is None:
        return 0
    return paragraph(
        out,
        "The protected files (lock, registry, freeze store, policy file) were read from "
        f"trusted revision {md_code(revision)}, not from this change.",
    )


def harness_note(out: Budget, facts: Facts) -> int:
    fixtures = facts.report["fixtures"]
    harness = [d for d in fixtures["drift"] if d["part"] == "harness"] if fixtures else []
    if not harness:
        return 0
    named = ", ".join(md_code(locked_name(d["path"], d.get("table"))) for d in harness[:NAMED])
    more = f" and {len(harness) - NAMED} more" if len(harness) > NAMED else ""
    return paragraph(
        out,
        f"**The change edits the test harness** ({named}{more}), so its replays cannot be "
        "trusted and every test is `fixture_drift`. Updating the harness is a separate, "
        "reviewed change.",
    )


def reach_admitted_note(out: Budget, facts: Facts) -> int:
    fixtures = facts.report["fixtures"]
    admitted = fixtures.get("runner_reach_admitted_by") if fixtures else None
    if fixtures is None or admitted is None:
        return 0
    reach = fixtures.get("runner_reach", [])
    named = "; ".join(
        f"{md_code(r['path'])} line {r['line']} {md_code(r['what'])}" for r in reach[:NAMED]
    )
    more = f"; and {len(reach) - NAMED} more" if len(reach) > NAMED else ""
    hypothesis = any("hypothesis" in r["what"].lower() for r in reach)
    note = " The lines that name Hypothesis can weaken the property suite's run." * hypothesis
    return paragraph(
        out,
        f"**The change's source reaches into the test runner** ({named}{more}); the approval "
        f"by {md_code(admitted['login'])} of {md_code(admitted['commit'])} admits it, so the "
        f"verdict is not `clean`.{note}",
    )


def lock_edited_note(out: Budget, facts: Facts) -> int:
    fixtures = facts.report["fixtures"]
    if fixtures is None or not fixtures.get("working_tree_lock_differs"):
        return 0
    return paragraph(
        out,
        "**This change edits the fixture lock.** The trusted lock was used; updating it is "
        "a separate human edit with its own review.",
    )
