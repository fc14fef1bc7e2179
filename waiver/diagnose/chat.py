"""One request to an OpenAI-compatible chat endpoint: one POST, a deadline, no retries.

Every way the call can fail becomes a `ChatFailed` whose message says why in words of
this module, never the server's, so no echo of the request (and so of the key) is kept.
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import Any

from waiver.errors import InputError, UsageError
from waiver.read.untrusted.jsonfile import parse_json

MAX_RESPONSE_BYTES = 1 << 20
CHUNK = 1 << 14


class ChatFailed(Exception):
    """The call produced no reply text; the message says why."""


def completions_url(endpoint: str) -> str:
    """`<endpoint>/chat/completions`, for a base URL that can carry the key safely."""
    parts = urllib.parse.urlsplit(endpoint)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise UsageError("--endpoint must be an https:// base URL")
    if parts.username is not None or parts.password is not None:
        raise UsageError(
            "--endpoint must not hold credentials; the key comes from WAIVER_MODEL_API_KEY"
        )
    if parts.query or parts.fragment:
        raise UsageError("--endpoint must be a base URL without a query or fragment")
    if parts.scheme == "http" and not _is_loopback(parts.hostname):
        # The key travels in a header: in clear only to this machine.
        raise UsageError("--endpoint must use https unless it is on this machine")
    return endpoint.rstrip("/") + "/chat/completions"


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _RefuseRedirects(urllib.request.HTTPRedirectHandler):
    # A redirect would resend the Authorization header to wherever the server points.
    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: Any,
        code: int,
        msg: str,
        headers: Any,
        newurl: str,
    ) -> None:
        return None


def _opener() -> urllib.request.OpenerDirector:
    # Plain http is only ever to this machine: no proxy may see that request or its key.
    proxies = {
        scheme: url for scheme, url in urllib.request.getproxies().items() if scheme == "https"
    }
    return urllib.request.build_opener(_RefuseRedirects, urllib.request.ProxyHandler(proxies))


def post_chat(url: str, key: str, body: Mapping[str, object], timeout: float) -> str:
    """The text of the first choice of one chat completion; raises ChatFailed."""
    # `url` comes from completions_url, which admits only http and https.
    request = urllib.request.Request(  # noqa: S310
        url,
        data=json.dumps(body).encode("utf-8"),
        method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"},
    )
    deadline = time.monotonic() + timeout
    try:
        with _opener().open(request, timeout=timeout) as response:
            data = _read_until(response, deadline, timeout)
    except urllib.error.HTTPError as error:
        error.close()
        raise ChatFailed(f"the endpoint answered HTTP {error.code}") from None
    except urllib.error.URLError as error:
        if isinstance(error.reason, TimeoutError):
            raise ChatFailed(_timed_out(timeout)) from None
        raise ChatFailed(f"could not reach the endpoint: {error.reason}") from None
    except TimeoutError:
        raise ChatFailed(_timed_out(timeout)) from None
    except (OSError, http.client.HTTPException) as error:
        raise ChatFailed(f"the connection failed: {type(error).__name__}") from None
    return reply_text(data)


def _timed_out(timeout: float) -> str:
    return f"no reply within the timeout of {timeout:g} s"


def _read_until(response: Any, deadline: float, timeout: float) -> bytes:
    """The body, capped in size; one socket read waits at most `timeout`, the whole about twice."""
    chunks: list[bytes] = []
    size = 0
    while chunk := response.read1(CHUNK):
        size += len(chunk)
        if size > MAX_RESPONSE_BYTES:
            raise ChatFailed(f"the reply is larger than {MAX_RESPONSE_BYTES} bytes")
        if time.monotonic() > deadline:
            raise ChatFailed(_timed_out(timeout))
        chunks.append(chunk)
    return b"".join(chunks)


def reply_text(data: bytes) -> str:
    """`choices[0].message.content` of a chat-completion response body."""
    if not data.strip():
        raise ChatFailed("the reply body is empty")
    try:
        document = parse_json(data, "reply")
    except InputError as error:
        raise ChatFailed(f"unreadable reply: {error.problem}") from None
    choices = document.get("choices") if isinstance(document, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        raise ChatFailed("the reply has no text at choices[0].message.content")
    return content
