"""A stand-in OpenAI-compatible chat endpoint on 127.0.0.1, for the diagnosis tests."""

from __future__ import annotations

import contextlib
import http.server
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Answer:
    status: int = 200
    body: bytes = b""
    delay: float = 0.0
    trickle: float = 0.0  # seconds between the body's bytes
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Seen:
    path: str
    headers: dict[str, str]
    body: bytes


def reply(text: str) -> Answer:
    """A 200 answer in the OpenAI chat-completion shape."""
    document = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
    }
    return Answer(body=json.dumps(document).encode())


class ChatServer(http.server.ThreadingHTTPServer):
    """Answers each POST with the next queued Answer and keeps what it was sent."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), ChatHandler)
        self.answers: list[Answer] = []
        self.seen: list[Seen] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class ChatHandler(http.server.BaseHTTPRequestHandler):
    server: ChatServer

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.server.seen.append(Seen(self.path, dict(self.headers.items()), body))
        answer = self.server.answers.pop(0)
        time.sleep(answer.delay)
        try:
            self.send_response(answer.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer.body)))
            for name, value in answer.headers:
                self.send_header(name, value)
            self.end_headers()
            if not answer.trickle:
                self.wfile.write(answer.body)
            for byte in answer.body if answer.trickle else b"":
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(answer.trickle)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up first: that is the timeout under test

    do_GET = do_POST  # what a followed redirect would send

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def running_chat_server() -> Iterator[ChatServer]:
    """A server on an ephemeral port for the duration of the block, stopped after."""
    server = ChatServer()
    # shutdown() waits for the serving loop's next poll: at the default half second
    # that wait, not the test, was most of the wall time of every test using it.
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
