"""How long a connection may take and how many the viewer holds at once.

`http.server` gives every connection a thread and waits on it forever: 300 sockets
that send nothing held 301 threads, and a socket sending one byte a second kept a
thread for as long as it liked. Here:

- a connection has `request_timeout` seconds, in total, to deliver its request line
  and headers (a per-`recv` timeout would let a trickle of bytes live forever);
- at most `max_connections` are open; when a new one arrives at the limit, the
  connection that has been waiting longest for its request is closed to make room,
  so idle sockets can never lock out a page. When every connection is busy
  answering, the new one gets 503 and is closed (the page polls again in 2 s).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

REQUEST_TIMEOUT = 5.0
"""Seconds to receive a whole request (line and headers) once the connection waits for one."""
WRITE_TIMEOUT = 30.0
"""Seconds to hand one response to a client that does not read it."""
MAX_CONNECTIONS = 32


class DeadlineReader(socket.SocketIO):
    """A socket's bytes where every `recv` waits only for the time left before `deadline`."""

    def __init__(self, sock: socket.socket) -> None:
        super().__init__(sock, "rb")
        self.sock = sock
        self.deadline: float | None = None

    def readinto(self, b: WriteableBuffer) -> int | None:
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the request did not arrive in time")
            self.sock.settimeout(left)
        return super().readinto(b)


class Connections:
    """The open connections, each either waiting for a request (idle) or answering one."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._idle: dict[socket.socket, bool] = {}
        """socket -> waiting for its request; insertion order is the order they began waiting."""

    def __len__(self) -> int:
        return len(self._idle)

    def admit(self, sock: socket.socket) -> bool:
        """Count a new connection in; False when every open one is busy (refuse it)."""
        with self._lock:
            if len(self._idle) >= self.limit:
                oldest = next((s for s, idle in self._idle.items() if idle), None)
                if oldest is None:
                    return False
                del self._idle[oldest]
                with contextlib.suppress(OSError):  # its thread's `recv` returns at once
                    oldest.shutdown(socket.SHUT_RDWR)
            self._idle[sock] = True
            return True

    def waiting(self, sock: socket.socket) -> None:
        """`sock` waits for a request again (first, or the next one on a kept-alive connection)."""
        with self._lock:
            if sock in self._idle:
                del self._idle[sock]
                self._idle[sock] = True

    def busy(self, sock: socket.socket) -> None:
        """`sock` delivered its request: it is answered, never closed to make room."""
        with self._lock:
            if sock in self._idle:
                self._idle[sock] = False

    def done(self, sock: socket.socket) -> None:
        with self._lock:
            self._idle.pop(sock, None)
