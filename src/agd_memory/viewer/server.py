"""`agd-memory view [FILE] [--port N] [--no-open]`: the local viewer's HTTP server.

Standard library only (`http.server`), bound to 127.0.0.1 and nothing else. The
first line on stdout is the page's URL, so a caller that starts the viewer in the
background (the `memory-view` skill) can read it and show it.

Endpoints (GET and HEAD):
  /, /index.html, static assets, /vendor/*.js   the page and its libraries
  /projects.json                                every project with a memory, the global layer
  /memory.json?project=KEY                      blocks, edges and stats of one project + global
  /version.json?project=KEY                     a token that changes with the files (live reload)
  /review.json?project=KEY                      the proposals waiting for review (`edit.pending`)
  /history.json?project=KEY[&q=|&id=]           sessions, search, an exchange (`history`)

Writes (POST only, from the viewer's own page: `guard.post_refusal`; see `edit`):
  /api/review                                   accept, reject or edit a pending proposal
  /api/entry                                    save an entry's desc, body, status, keys; delete it
  /api/history                                  forget a session (`history.forget_action`)
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import secrets
import socket
import sys
import threading
import time
import webbrowser
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from .. import debuglog
from ..errors import UserError
from ..settings import Settings
from . import assets, edit, guard, history, limits, payload
from .catalog import Catalog

DEFAULT_PORT = 8765
PORT_TRIES = 35
"""8765 then the next 34 ports, then any free port the system picks."""


class ViewerServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64
    # SO_REUSEADDR lets a restarted viewer take its port back at once (not after TIME_WAIT);
    # Linux and macOS still refuse a second listener. Windows would let another process
    # bind over ours, so it is off there.
    allow_reuse_address = os.name != "nt"

    def __init__(
        self,
        port: int,
        catalog: Catalog,
        table: dict[str, assets.Asset],
        *,
        verbose: bool = False,
    ) -> None:
        super().__init__(("127.0.0.1", port), Handler)
        self.catalog = catalog
        self.table = table
        self.verbose = verbose
        self.last_request = time.monotonic()
        self.request_timeout = limits.REQUEST_TIMEOUT
        self.connections = limits.Connections(limits.MAX_CONNECTIONS)
        self.bodies = payload.Bodies()
        self.token = secrets.token_urlsafe(32)
        """Required on every POST (`guard.post_refusal`); only the page served here holds it."""
        self.secret = secrets.token_urlsafe(32)
        """Required on every request (`guard.visitor`): in the address the command prints,
        then in a cookie; another local user who finds the port has neither."""

    def process_request(self, request: socket.socket, client_address: tuple[str, int]) -> None:
        # One thread per admitted connection; `limits` bounds how many and for how long.
        if self.connections.admit(request):
            super().process_request(request, client_address)
            return
        with contextlib.suppress(OSError):
            request.sendall(BUSY)
        self.shutdown_request(request)

    def process_request_thread(
        self, request: socket.socket, client_address: tuple[str, int]
    ) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.connections.done(request)

    def handle_error(self, request: object, client_address: tuple[str, int]) -> None:
        # socketserver prints a traceback to stderr; a viewer's user has nothing to do with it.
        exc = sys.exc_info()[1]
        debuglog.log(f"viewer: request from {client_address[0]} failed: {exc!r}")

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/"

    @property
    def url(self) -> str:
        """The address to open: the origin with the viewer's token."""
        return f"{self.origin}?token={self.secret}"


def _busy_response(body: bytes = b"busy: try again in a moment\n") -> bytes:
    headers = [
        ("Content-Type", "text/plain; charset=utf-8"),
        ("Content-Length", str(len(body))),
        ("Connection", "close"),
        *guard.SECURITY_HEADERS,
    ]
    head = "".join(f"{name}: {value}\r\n" for name, value in headers)
    return f"HTTP/1.0 503 Service Unavailable\r\n{head}\r\n".encode() + body


BUSY = _busy_response()
"""Sent, without a thread, to a connection arriving when every admitted one is answering."""


class Handler(BaseHTTPRequestHandler):
    server: ViewerServer
    server_version = "agd-memory-viewer"
    sys_version = ""
    timeout = limits.WRITE_TIMEOUT

    def setup(self) -> None:
        super().setup()
        self.rfile.close()
        self._reader = limits.DeadlineReader(self.connection)
        self.rfile = io.BufferedReader(self._reader)

    def handle_one_request(self) -> None:
        # The clock starts when the connection waits for a request, so idle time counts.
        self._reader.deadline = time.monotonic() + self.server.request_timeout
        self.server.connections.waiting(self.connection)
        super().handle_one_request()

    def parse_request(self) -> bool:
        """Read the headers (still against the deadline), then refuse a Host that is not
        exactly one loopback name, for every method."""
        parsed = super().parse_request()
        self._reader.deadline = None
        self.connection.settimeout(limits.WRITE_TIMEOUT)
        self.server.connections.busy(self.connection)
        if not parsed:
            return False
        refusal = guard.host_refusal(self.headers.get_all("Host") or [])
        port = self.server.server_address[1]
        who = guard.visitor(
            self.headers.get("Cookie"), urlsplit(self.path).query, self.server.secret, port
        )
        if refusal is None and who is None:
            refusal = (HTTPStatus.FORBIDDEN, guard.NO_TOKEN)
        if refusal is not None:
            self._send_body = self.command != "HEAD"
            self.close_connection = True
            self._send(refusal[0], refusal[1], "text/plain; charset=utf-8")
            return False
        self._remember = who == "query"
        return True

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        # http.server's own errors (bad request line, too many headers...) carry the same
        # headers as every other answer, and plain text instead of its HTML page.
        self.close_connection = True
        self._send_body = getattr(self, "command", None) != "HEAD"
        status = HTTPStatus(code)
        self._send(
            status, f"{code} {message or status.phrase}\n".encode(), "text/plain; charset=utf-8"
        )

    def do_GET(self) -> None:
        self._handle(send_body=True)

    def do_HEAD(self) -> None:
        self._handle(send_body=False)

    def _refuse_method(self) -> None:
        self._send(
            HTTPStatus.METHOD_NOT_ALLOWED, b"method not allowed\n", "text/plain; charset=utf-8"
        )

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse_method

    def do_POST(self) -> None:
        self.server.last_request = time.monotonic()
        self._send_body = True
        self.close_connection = True
        path = urlsplit(self.path).path
        actions = {
            "/api/review": edit.review_action,
            "/api/entry": edit.entry_action,
            "/api/history": history.forget_action,
        }
        if path not in actions:
            self._refuse_method()
            return
        refusal = guard.post_refusal(self.headers, self.server.token, self.server.server_address[1])
        if refusal is not None:
            self._send(refusal[0], refusal[1], "text/plain; charset=utf-8")
            return
        try:
            length = int(self.headers.get("Content-Length") or "")
        except ValueError:
            length = -1
        if not 0 < length <= edit.MAX_REQUEST:
            self._json(
                HTTPStatus.REQUEST_ENTITY_TOO_LARGE if length > 0 else HTTPStatus.LENGTH_REQUIRED,
                {"error": f"send a JSON body of at most {edit.MAX_REQUEST} bytes"},
            )
            return
        try:
            data = json.loads(self.rfile.read(length))
            if not isinstance(data, dict):
                raise ValueError("not an object")
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            why = "nested too deeply" if isinstance(exc, RecursionError) else exc
            self._json(
                HTTPStatus.BAD_REQUEST, {"error": f"the request is not a JSON object: {why}"}
            )
            return
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            return
        try:
            status, answer = actions[path](self.server.catalog, data)
        except UserError as exc:
            status, answer = edit.status_of(exc), {"error": str(exc)}
            if isinstance(exc, edit.StaleEdit):
                answer["current"] = exc.current
        except Exception as exc:  # one bad request must never stop the server
            debuglog.log(f"viewer: POST {path}: {type(exc).__name__}: {exc}")
            status, answer = HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"internal error: {exc}"}
        with contextlib.suppress(BrokenPipeError, ConnectionResetError, TimeoutError):
            self._json(status, answer)

    def _handle(self, *, send_body: bool) -> None:
        self.server.last_request = time.monotonic()
        self._send_body = send_body
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        try:
            if url.path == "/projects.json":
                self._json(HTTPStatus.OK, self._projects())
            elif url.path in ("/memory.json", "/version.json"):
                self._memory(url.path, query)
            elif url.path == "/review.json":
                catalog = self.server.catalog
                key = (query.get("project") or [None])[0] or catalog.initial_key(catalog.projects())
                self._json(*edit.pending(catalog, key))
            elif url.path == "/history.json":
                try:
                    self._json(*history.get(self.server.catalog, query))
                except UserError as exc:
                    self._json(edit.status_of(exc), {"error": str(exc)})
            elif url.path in self.server.table:
                asset = self.server.table[url.path]
                body = asset.path.read_bytes()
                if url.path in ("/", "/index.html"):  # the page carries the write token
                    meta = f'<meta name="{guard.TOKEN_META}" content="{self.server.token}">'
                    body = body.replace(b"</head>", meta.encode() + b"\n</head>", 1)
                self._send(HTTPStatus.OK, body, asset.content_type)
            else:
                self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            # The page went away mid-answer (reload, closed tab) or stopped reading it for
            # WRITE_TIMEOUT: nothing to tell it (a 500 would wait as long again).
            return
        except Exception as exc:  # one bad request must never stop the server
            debuglog.log(f"viewer: {self.path}: {type(exc).__name__}: {exc}")
            self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"internal error: {exc}"})

    def _projects(self) -> dict[str, object]:
        catalog = self.server.catalog
        projects = catalog.projects()
        return {
            "initial": catalog.initial_key(projects),
            "projects": [p.as_json() for p in projects],
            "global": catalog.global_json(),
            "vendor": assets.vendor_status(self.server.table),
            "vendor_notice": assets.vendor_notice(self.server.table),
            "install_root": str(assets.install_root(catalog.settings.plugin_root)),
        }

    def _memory(self, endpoint: str, query: dict[str, list[str]]) -> None:
        catalog = self.server.catalog
        key = (query.get("project") or [None])[0]
        if key is None:
            key = catalog.initial_key(catalog.projects())
        layers = catalog.layers_for(key)
        if layers is None:
            self._json(HTTPStatus.NOT_FOUND, {"error": edit.unknown_project(key)})
        elif endpoint == "/version.json":
            self._json(HTTPStatus.OK, {"key": key, "version": payload.version(layers)})
        else:
            body = self.server.bodies.memory_json(key, layers, catalog.settings)
            self._send(HTTPStatus.OK, body, "application/json; charset=utf-8")

    def _json(self, status: HTTPStatus, data: object) -> None:
        self._send(status, payload.encode(data), "application/json; charset=utf-8")

    def _send(self, status: HTTPStatus, body: bytes, content_type: str) -> None:
        if self.request_version == "HTTP/0.9":  # a 0.9 answer has no headers; ours always do
            self.request_version = "HTTP/1.0"
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in guard.SECURITY_HEADERS:
            self.send_header(name, value)
        if getattr(self, "_remember", False):
            name = guard.cookie_name(self.server.server_address[1])
            cookie = f"{name}={self.server.secret}; HttpOnly; SameSite=Strict; Path=/"
            self.send_header("Set-Cookie", cookie)
        self.end_headers()
        if getattr(self, "_send_body", True):
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        # The page polls for changes every two seconds: log only when asked to.
        if self.server.verbose:
            sys.stderr.write(f"[viewer] {self.address_string()} {format % args}\n")


def bind(port: int, catalog: Catalog, table: dict[str, assets.Asset], **kw: bool) -> ViewerServer:
    """A server on 127.0.0.1: `port` or one of the next ones, else any free port (0 = any)."""
    candidates = [port + i for i in range(PORT_TRIES) if port + i < 65536] if port else []
    for candidate in [*candidates, 0]:
        try:
            return ViewerServer(candidate, catalog, table, **kw)
        except OSError as exc:
            if exc.errno not in (errno.EADDRINUSE, errno.EACCES):
                raise
    raise UserError("no free port on 127.0.0.1 for the viewer")  # pragma: no cover


def make_server(
    settings: Settings,
    *,
    port: int = DEFAULT_PORT,
    launch_file: Path | None = None,
    verbose: bool = False,
) -> ViewerServer:
    """Build (and bind) the viewer for these settings; the caller runs `serve_forever`."""
    catalog = Catalog(settings, launch_file=launch_file)
    table = assets.build_table(settings.plugin_root, settings.data_dir)
    return bind(port, catalog, table, verbose=verbose)


def _stop_when_idle(server: ViewerServer, idle_s: float) -> None:
    """Shut the server down after `idle_s` seconds without a request (an open page polls)."""
    while True:
        time.sleep(min(idle_s, 5.0))
        if time.monotonic() - server.last_request > idle_s:
            server.shutdown()
            return


def serve(
    settings: Settings,
    *,
    port: int = DEFAULT_PORT,
    launch_file: Path | None = None,
    verbose: bool = False,
    idle_exit: float = 0,
    open_browser: bool = True,
) -> int:
    """Serve until Ctrl+C (or `idle_exit` seconds without a request); `agd-memory view`."""
    server = make_server(settings, port=port, launch_file=launch_file, verbose=verbose)
    print(server.url, flush=True)
    print(
        f"agd-memory view: serving {server.catalog.launch_path} and the global layer "
        f"on {server.url} (Ctrl+C to stop)",
        file=sys.stderr,
        flush=True,
    )
    if idle_exit > 0:
        threading.Thread(target=_stop_when_idle, args=(server, idle_exit), daemon=True).start()
    if open_browser:
        threading.Timer(0.3, webbrowser.open, (server.url,)).start()
    try:
        server.serve_forever(poll_interval=0.25)
    except KeyboardInterrupt:
        print("agd-memory view: stopped", file=sys.stderr)
    finally:
        server.server_close()
    return 0
