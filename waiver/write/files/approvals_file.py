"""The shape of approvals.json, which `waiver approvals` writes and `waiver gate
--approvals FILE` reads back (`waiver.read.evidence.review_data`): the REST API's own objects for the
pull request, its reviews, its commits and the approvers' permissions, so that the file and
the API are read by one reader; or why they could not be read."""

# No `from __future__ import annotations`: on Python 3.11 a TypedDict sees `NotRequired`
# only in an evaluated annotation.

import json
from typing import NotRequired, TypedDict


class PullRequestJson(TypedDict):
    number: object
    user: object
    head: object
    base: object


class ApprovalsFileJson(TypedDict):
    pull_request: NotRequired[PullRequestJson]
    reviews: NotRequired[list[object]]  # the API's review objects
    commits: NotRequired[list[object]]  # the API's commit objects
    permissions: NotRequired[dict[str, object]]  # login: the collaborator-permission object
    run_head: NotRequired[str]  # the commit the run was about
    error: str | None  # why the reviews could not be read; then nothing else is here


def render_approvals(document: ApprovalsFileJson) -> str:
    return json.dumps(document, ensure_ascii=True, sort_keys=True)
