"""A pull request's reviews as `waiver approvals` writes them (and `--approvals github`
fetches them): untrusted JSON in, `ReviewData` out, or the reason none can be had.

The document holds the REST API's own objects, so that the file and the API are read by one
reader: `pull_request` (`number`, `user.login`, `head.sha`), `reviews` (`id`, `user.login`,
`user.type`, `state`, `commit_id`), `commits` (`author.login`, `committer.login`) and
`permissions` (a login to the collaborator-permission object, `permission` and
`role_name`), or `error` when reading them failed. Any other field is ignored; a field of
the wrong type makes the whole document unusable, which admits nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from waiver.decide.approval import Review, ReviewData
from waiver.errors import InputError
from waiver.read.untrusted.files import read_small
from waiver.read.untrusted.jsonfile import parse_json

MAX_APPROVALS_BYTES = 32 << 20


class Unusable(Exception):
    """The reviews cannot be judged; the message says why, and nothing is admitted."""


def _field(value: object, *keys: str, kind: type | tuple[type, ...] = str) -> Any:
    for key in keys:
        if not isinstance(value, Mapping) or key not in value:
            raise Unusable(f"the field {'.'.join(keys)} is missing")
        value = value[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise Unusable(f"the field {'.'.join(keys)} has the wrong type")
    return value


def _login(value: object, key: str) -> str | None:
    """A commit's author or committer login; None when GitHub knows no user for it."""
    person = value.get(key) if isinstance(value, Mapping) else None
    return None if person is None else str(_field(person, "login")).casefold()


def _role(value: object) -> str:
    role = value.get("role_name") if isinstance(value, Mapping) else None
    permission = _field(value, "permission")
    return role if isinstance(role, str) and role in ("admin", "maintain", "write") else permission


def _commit_id(review: object) -> str | None:
    found = review.get("commit_id") if isinstance(review, Mapping) else None
    return found if isinstance(found, str) else None


def parse_reviews(reviews: list[object]) -> tuple[Review, ...]:
    """The API's review objects as `Review`s; Unusable when one has the wrong shape."""
    return tuple(
        Review(
            review_id=_field(review, "id", kind=int),
            login=_field(review, "user", "login"),
            is_bot=_field(review, "user", "type") == "Bot",
            state=_field(review, "state"),
            commit_id=_commit_id(review),
        )
        for review in reviews
    )


def review_data(document: object) -> ReviewData:
    """The typed data of a document, or Unusable."""
    if not isinstance(document, Mapping):
        raise Unusable("not a JSON object")
    error = document.get("error")
    if error is not None:
        raise Unusable(str(error)[:300])
    pull = document.get("pull_request")
    reviews = _field(document, "reviews", kind=list)
    commits = _field(document, "commits", kind=list)
    permissions = _field(document, "permissions", kind=dict)
    people = {_login(commit, key) for commit in commits for key in ("author", "committer")}
    return ReviewData(
        number=_field(pull, "number", kind=int),
        author=_field(pull, "user", "login"),
        head_sha=_field(pull, "head", "sha"),
        reviews=parse_reviews(reviews),
        commit_people=frozenset(login for login in people if login is not None),
        roles={str(login).casefold(): _role(value) for login, value in permissions.items()},
    )


def read_approvals(path: str) -> ReviewData:
    """The reviews in the file at `path`; Unusable when it cannot be read or judged."""
    try:
        document = parse_json(read_small(path, MAX_APPROVALS_BYTES, path), path)
    except InputError as error:
        raise Unusable(str(error)) from None
    return review_data(document)
