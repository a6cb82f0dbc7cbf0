"""The server's first answers, from the standard library, while the SDK imports.

A `claude -p` session sends its first model request about 2 s after it starts the
server, connected or not, and importing the SDK takes about 0.6 s of CPU: on shared
cores that is often too late (benchmarks/mcp_sessions.py). So `mcp.server.serve`
imports the SDK in a thread while this module answers what a client asks first, from
`handshake.json`, a record of the SDK's own answers (`mcp.app.write_handshake` makes
it; tests/mcp/test_mcp_handshake.py holds it equal to them):

- `initialize`, when the client asks for a protocol version the SDK speaks;
- `tools/list`, `prompts/list`, `resources/list` and `resources/templates/list`
  without a cursor, and `ping`.

The first message it does not answer (a tool call, usually) goes to the SDK, after the
lines the SDK must see first: the client's `initialize` and every notification so far,
in order. The SDK's reply to that replayed `initialize` is dropped (the client has it).

While the server runs, descriptor 0 reads the null device and descriptor 1 writes to
stderr, as the SDK's own stdio transport arranges: a stray print, a library warning or
a child process never reaches the protocol stream.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any, BinaryIO, TextIO

SNAPSHOT = Path(__file__).with_name("handshake.json")
LIST_METHODS = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")


def load_snapshot() -> dict[str, Any] | None:
    """The recorded answers, or None (then the SDK answers everything)."""
    try:
        with open(SNAPSHOT, encoding="utf-8") as fh:
            snapshot = json.loads(fh.read(1 << 20))
    except (OSError, ValueError):
        return None
    return snapshot if isinstance(snapshot, dict) else None


class Wire:
    """The protocol's two descriptors, taken from 0 and 1 (which then point elsewhere)."""

    def __init__(self) -> None:
        self.inp: BinaryIO = os.fdopen(os.dup(0), "rb")
        self.out: BinaryIO = os.fdopen(os.dup(1), "wb")
        devnull = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(devnull, 0)
        finally:
            os.close(devnull)
        os.dup2(2, 1)
        self.lock = threading.Lock()

    def send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        with self.lock:
            self.out.write(data)
            self.out.flush()


def answer_first(wire: Wire, snapshot: dict[str, Any]) -> list[bytes] | None:
    """Answer from `snapshot` until a message needs the SDK; the lines the SDK must then
    read first (the last one is that message), or None when the client closed stdin."""
    replay: list[bytes] = []
    initialized = False
    versions = snapshot.get("versions") or []
    while line := wire.inp.readline():
        try:
            msg = json.loads(line)
        except ValueError:
            msg = None
        if not isinstance(msg, dict) or not isinstance(msg.get("method"), str):
            return [*replay, line]  # the SDK says what is wrong with it
        method, params = msg["method"], msg.get("params")
        if "id" not in msg:  # a notification: the SDK sees it later, in order
            replay.append(line)
            continue
        params = params if isinstance(params, dict) else {}
        if method == "initialize" and not initialized:
            if params.get("protocolVersion") not in versions:
                return [*replay, line]
            result = {**snapshot["initialize"], "protocolVersion": params["protocolVersion"]}
            initialized = True
            replay.append(line)
        elif initialized and method in LIST_METHODS and not params.get("cursor"):
            result = snapshot["lists"][method]
        elif method == "ping":
            result = {}
        else:
            return [*replay, line]
        wire.send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
    return None


class ReplayReader:
    """Text lines for the SDK: `first`, then the rest of the wire."""

    def __init__(self, first: list[bytes], inp: BinaryIO) -> None:
        self.first = list(first)
        self.inp = inp

    def readline(self) -> str:
        line = self.first.pop(0) if self.first else self.inp.readline()
        return line.decode("utf-8", "replace")


class SkipReplyWriter:
    """Text lines from the SDK to the wire, without its reply to a replayed `initialize`."""

    def __init__(self, wire: Wire, skip_id: Any) -> None:
        self.wire = wire
        self.skip_id = skip_id
        self.skipping = skip_id is not None

    def write(self, text: str) -> int:
        if self.skipping:
            try:
                msg = json.loads(text)
            except ValueError:
                msg = None
            if isinstance(msg, dict) and msg.get("id") == self.skip_id and "method" not in msg:
                self.skipping = False
                return len(text)
        with self.wire.lock:
            self.wire.out.write(text.encode("utf-8"))
        return len(text)

    def flush(self) -> None:
        with self.wire.lock:
            self.wire.out.flush()


def initialize_id(replay: list[bytes]) -> Any:
    """The id of the `initialize` request among `replay` that the client got an answer to."""
    for line in replay[:-1]:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if isinstance(msg, dict) and msg.get("method") == "initialize" and "id" in msg:
            return msg["id"]
    return None


def text_streams(wire: Wire, replay: list[bytes]) -> tuple[TextIO, TextIO]:
    """The SDK's stdin and stdout for the hand-over."""
    reader = ReplayReader(replay, wire.inp)
    writer = SkipReplyWriter(wire, initialize_id(replay))
    return reader, writer  # type: ignore[return-value] - readline/write/flush is all it uses
