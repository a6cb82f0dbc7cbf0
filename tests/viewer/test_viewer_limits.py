"""The viewer under abuse: idle and trickling sockets, too many connections, two Host headers,
many page loads of one big memory. Real sockets on 127.0.0.1."""

from __future__ import annotations

import os
import select
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from test_viewer_server import request
from viewer_fixtures import Home

from agd_memory.viewer import limits, payload


def connect(srv) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", srv.server_address[1]), timeout=10)
    return sock


def raw(srv, data: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send raw bytes, read the answer until the server closes: (status, headers, body)."""
    with connect(srv) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines)}
    return int(status_line.split()[1]), headers, body


def closed_by_server(sock: socket.socket, *, trickle: bytes = b"", within: float = 20.0) -> bool:
    """True once the server closes `sock` (EOF, no answer), sending `trickle` a byte at a time
    every 0.1 s meanwhile; False if it is still open after `within` seconds."""
    end = time.monotonic() + within
    i = 0
    while time.monotonic() < end:
        readable, _, _ = select.select([sock], [], [], 0.1)
        if readable:
            try:
                return sock.recv(1) == b""
            except ConnectionResetError:
                return True
        if trickle:
            try:
                sock.sendall(trickle[i % len(trickle) : i % len(trickle) + 1])
            except (BrokenPipeError, ConnectionResetError):
                return True
            i += 1
    return False


def wait_until(condition, within: float = 10.0) -> bool:
    end = time.monotonic() + within
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


# -- idle time ----------------------------------------------------------------------


def test_a_silent_socket_is_closed(server):
    server.request_timeout = 0.5
    with connect(server) as sock:
        assert closed_by_server(sock)


@pytest.mark.parametrize(
    "start",
    [b"", b"GET / HTTP/1.1\r\n", b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "],
)
def test_a_request_trickled_byte_by_byte_is_closed(server, start):
    """A byte every 0.1 s never lets one `recv` wait long: the deadline is for the whole request."""
    server.request_timeout = 0.5
    with connect(server) as sock:
        sock.sendall(start)
        assert closed_by_server(sock, trickle=b"GET /aaaaaaaa" if not start else b"a")


# -- how many connections -----------------------------------------------------------


def test_idle_sockets_neither_pile_up_threads_nor_lock_out_the_page(server):
    server.request_timeout = 120  # far longer than the test: no idle socket expires on its own
    before = threading.active_count()
    idle = [connect(server) for _ in range(300)]
    try:
        # Accepted after the 300 (the listen queue is first in, first out), answered at once.
        status, _, body = request(server, "/projects.json")
        assert status == 200 and b"-work-harbor" in body
        bound = before + limits.MAX_CONNECTIONS
        assert wait_until(lambda: threading.active_count() <= bound), threading.active_count()
        assert len(server.connections) <= limits.MAX_CONNECTIONS
        # The sockets that made room were closed by the server, the newest are still open.
        assert closed_by_server(idle[0], within=10)
        readable, _, _ = select.select(idle[-5:], [], [], 0)
        assert readable == []
    finally:
        for sock in idle:
            sock.close()


def test_connections_make_room_by_closing_the_longest_idle_one():
    table = limits.Connections(2)
    pairs = [socket.socketpair() for _ in range(4)]
    ours = [a for a, _ in pairs]
    try:
        assert table.admit(ours[0]) and table.admit(ours[1])
        table.busy(ours[1])
        assert table.admit(ours[2])  # the idle one (0) is closed to make room, not the busy one
        assert pairs[0][1].recv(1) == b""
        pairs[1][1].setblocking(False)
        with pytest.raises(BlockingIOError):
            pairs[1][1].recv(1)
        table.busy(ours[2])
        assert not table.admit(ours[3])  # every open connection is answering: refuse
        table.done(ours[1])
        assert table.admit(ours[3])
        assert len(table) == 2
    finally:
        for a, b in pairs:
            a.close()
            b.close()


def test_a_connection_beyond_a_full_busy_server_gets_503(server, monkeypatch):
    monkeypatch.setattr(server.connections, "admit", lambda sock: False)
    status, headers, body = raw(server, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert status == 503 and b"try again" in body
    assert int(headers["content-length"]) == len(body)
    assert "default-src 'none'" in headers["content-security-policy"]


# -- Host ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "hosts",
    [
        ["127.0.0.1", "evil.example"],
        ["evil.example", "127.0.0.1"],
        ["127.0.0.1", "127.0.0.1"],
        ["localhost", "[::1]"],
        ["127.0.0.1", ""],
    ],
)
@pytest.mark.parametrize("method", ["GET", "HEAD", "POST"])
def test_a_second_host_header_is_refused(server, hosts, method):
    lines = "".join(
        f"{name}: {value}\r\n" for name, value in zip(("Host", "host"), hosts, strict=True)
    )
    for path in ("/", "/memory.json?project=-work-harbor"):
        status, headers, body = raw(server, f"{method} {path} HTTP/1.1\r\n{lines}\r\n".encode())
        assert status == 400
        assert b"blocks" not in body and b"<html" not in body.lower()
        assert headers["cache-control"] == "no-store"


def test_malformed_requests_get_the_same_strict_headers(server):
    for data in (
        b"GARBAGE\r\n\r\n",
        b"GET / HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n",
        b"GET /\r\n\r\n",  # HTTP/0.9: http.server would answer the page with no headers at all
    ):
        status, headers, body = raw(server, data)
        assert 400 <= status < 600
        assert "default-src 'none'" in headers["content-security-policy"]
        assert headers["content-type"] == "text/plain; charset=utf-8"
        assert int(headers["content-length"]) == len(body)


# -- one payload per file version ---------------------------------------------------


def count_builds(monkeypatch) -> list[str]:
    built: list[str] = []
    real = payload.memory_json

    def counting(key, layers, settings):
        built.append(key)
        return real(key, layers, settings)

    monkeypatch.setattr(payload, "memory_json", counting)
    return built


def test_concurrent_page_loads_share_one_build(server, home: Home, monkeypatch):
    built = count_builds(monkeypatch)
    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(lambda _: request(server, "/memory.json"), range(20)))
    assert {status for status, _, _ in answers} == {200}
    assert len({body for _, _, body in answers}) == 1
    assert built == ["-work-harbor"]
    request(server, "/memory.json?project=~global")
    request(server, "/memory.json")
    assert built == ["-work-harbor", "~global"]


def test_a_same_size_rewrite_in_the_same_tick_is_seen(server, home: Home, monkeypatch):
    """A save is an atomic rename: same size and mtime, but a new inode, is a new version."""
    built = count_builds(monkeypatch)
    _, _, first = request(server, "/memory.json")
    _, _, version = request(server, "/version.json")
    st = home.project.stat()
    text = home.project.read_text(encoding="utf-8")
    assert "zanzibar" in text
    new = home.project.with_name("memory.agd.new")
    new.write_text(text.replace("zanzibar", "zimbabwe"), encoding="utf-8")
    os.utime(new, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(new, home.project)
    _, _, after = request(server, "/version.json")
    assert after != version  # the page's poll sees the change
    _, _, second = request(server, "/memory.json")
    assert b"zimbabwe" in second and b"zanzibar" not in second
    assert b"zanzibar" in first
    assert len(built) == 2
