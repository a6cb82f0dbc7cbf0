"""A fake Anthropic Messages API on 127.0.0.1, for driving the real `claude` CLI offline.

Claude Code honours `ANTHROPIC_BASE_URL`, so pointing it here lets a test see
every request body the CLI sends (system prompt, hook context, tool results)
and decide every answer, with no network and no credentials.

Answers are scripted per request. `FakeAnthropic.script(...)` queues replies for
the *conversation* requests (those that offer tools: the main loop); any other
request (a title or summary side call) and any conversation request past the end
of the queue get `default` (plain text). A reply is `Reply.text(...)` or
`Reply.tool_use(tool, input, then=...)`: the tool name may be the bare MCP tool
name (`agd_memory_get`), and is matched against the tools the request offers,
because Claude Code prefixes plugin tools (`mcp__plugin_<plugin>_<server>__<tool>`).

Both response styles are served: SSE streaming when the body asks for
`"stream": true`, one JSON message otherwise. The server thread is a daemon and
`close()` stops it; the pytest fixture closes it when the test ends.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT_TEXT = "FAKE-REPLY: ok."
MODEL = "claude-sonnet-4-5"
_ids = itertools.count(1)


@dataclass(frozen=True)
class Reply:
    """One scripted answer: text, or a tool call (optionally followed by text in the same turn)."""

    text_value: str = ""
    tool: str | None = None
    """Tool to call: the exact name, or the bare name matched as a `__<name>` suffix."""
    tool_input: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def text(cls, value: str) -> Reply:
        return cls(text_value=value)

    @classmethod
    def tool_use(cls, tool: str, tool_input: dict[str, Any], *, then: str = "") -> Reply:
        """Call `tool` with `tool_input`; `then` is text sent before the call in the same message."""
        return cls(text_value=then, tool=tool, tool_input=dict(tool_input))


@dataclass
class Request:
    """A request the fake received."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def is_conversation(self) -> bool:
        """True for main-loop requests: they offer tools to the model."""
        return bool(self.body.get("tools"))

    @property
    def tool_names(self) -> list[str]:
        return [t.get("name", "") for t in self.body.get("tools") or [] if isinstance(t, dict)]

    def texts(self) -> list[str]:
        """Every text in the request: system prompt blocks, and message text and tool results."""
        out: list[str] = []
        system = self.body.get("system")
        if isinstance(system, str):
            out.append(system)
        elif isinstance(system, list):
            out += [b.get("text", "") for b in system if isinstance(b, dict)]
        for message in self.body.get("messages") or []:
            out += list(_content_texts(message.get("content")))
        return out

    def all_text(self) -> str:
        return "\n".join(self.texts())

    def message_text(self) -> str:
        """Text of the messages only (no system prompt): where hook context lands."""
        parts: list[str] = []
        for message in self.body.get("messages") or []:
            parts += list(_content_texts(message.get("content")))
        return "\n".join(parts)

    def tool_results(self) -> list[str]:
        """Text of every `tool_result` block in the messages, in order."""
        out: list[str] = []
        for message in self.body.get("messages") or []:
            content = message.get("content")
            if not isinstance(content, list):
                continue
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    out.append("\n".join(_content_texts(block.get("content"))))
        return out


def _content_texts(content: Any) -> Iterable[str]:
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                yield block.get("text", "")
            elif block.get("type") == "tool_result":
                yield from _content_texts(block.get("content"))


class FakeAnthropic:
    """The fake server. Use as a context manager or call `close()`."""

    def __init__(self, *, default: Reply | None = None) -> None:
        self.default = default or Reply.text(DEFAULT_TEXT)
        self.requests: list[Request] = []
        self._queue: list[Reply] = []
        self._lock = threading.Lock()
        self.responder: Callable[[Request], Reply | None] | None = None
        """Optional hook deciding a reply before the queue; return None to fall through."""
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="fake-anthropic", daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def script(self, *replies: Reply) -> None:
        """Queue replies for the next conversation requests, in order."""
        with self._lock:
            self._queue.extend(replies)

    def conversation(self) -> list[Request]:
        """The main-loop requests received so far."""
        with self._lock:
            return [
                r for r in self.requests if r.path.startswith("/v1/messages") and r.is_conversation
            ]

    def messages_requests(self) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.path.split("?")[0] == "/v1/messages"]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeAnthropic:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- called from the handler thread ---------------------------------------------

    def _record(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self.responder is not None:
                chosen = self.responder(request)
                if chosen is not None:
                    return chosen
            if request.is_conversation and self._queue:
                return self._queue.pop(0)
            return self.default


def _resolve_tool(reply: Reply, request: Request) -> str:
    assert reply.tool is not None
    names = request.tool_names
    if reply.tool in names:
        return reply.tool
    for name in names:
        if name.endswith("__" + reply.tool):
            return name
    return reply.tool  # not offered: Claude Code will report it as unknown


def _message(reply: Reply, request: Request) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.text_value:
        content.append({"type": "text", "text": reply.text_value})
    if reply.tool:
        content.append(
            {
                "type": "tool_use",
                "id": f"toolu_fake{next(_ids):06d}",
                "name": _resolve_tool(reply, request),
                "input": reply.tool_input,
            }
        )
    if not content:
        content.append({"type": "text", "text": DEFAULT_TEXT})
    return {
        "id": f"msg_fake{next(_ids):06d}",
        "type": "message",
        "role": "assistant",
        "model": request.body.get("model") or MODEL,
        "content": content,
        "stop_reason": "tool_use" if reply.tool else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def _sse_events(message: dict[str, Any]) -> Iterable[tuple[str, dict[str, Any]]]:
    start = dict(
        message, content=[], stop_reason=None, usage={"input_tokens": 10, "output_tokens": 1}
    )
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "text", "text": ""},
                },
            )
            yield (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": block["text"]},
                },
            )
        else:
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": dict(block, input={}),
                },
            )
            yield (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {
                        "type": "input_json_delta",
                        "partial_json": json.dumps(block["input"]),
                    },
                },
            )
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": 5},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def _make_handler(fake: FakeAnthropic) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - quiet
            pass

        def _send_json(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 - http.server API
            self._send_json(
                404, {"type": "error", "error": {"type": "not_found_error", "message": "fake"}}
            )

        def do_HEAD(self) -> None:  # noqa: N802 - http.server API
            self.send_response(404)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_POST(self) -> None:  # noqa: N802 - http.server API
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            path = self.path.split("?")[0]
            request = Request(
                self.path,
                {k.lower(): v for k, v in self.headers.items()},
                body if isinstance(body, dict) else {},
            )
            if path == "/v1/messages/count_tokens":
                with fake._lock:
                    fake.requests.append(request)
                self._send_json(200, {"input_tokens": max(1, len(raw) // 4)})
                return
            if path != "/v1/messages":
                with fake._lock:
                    fake.requests.append(request)
                self._send_json(
                    404, {"type": "error", "error": {"type": "not_found_error", "message": "fake"}}
                )
                return
            reply = fake._record(request)
            message = _message(reply, request)
            if not request.body.get("stream"):
                self._send_json(200, message)
                return
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            for name, data in _sse_events(message):
                self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()
            self.close_connection = True

    return Handler
