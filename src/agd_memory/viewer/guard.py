"""What every response carries, and which requests are refused before any work.

DNS rebinding: a web page on `evil.example` can make its own name resolve to
127.0.0.1 and then read `http://evil.example:8765/memory.json` as same-origin.
The browser still sends `Host: evil.example:8765`, so anything but a loopback
name is refused with 403 (the earlier viewer had no such check). A request with
two `Host` headers is malformed (RFC 9112 §3.2) and refused with 400: reading only
the first would let a proxy and this server disagree on which host was asked.

Writes (the review queue, editing and deleting entries) are POST only and refused by
`post_refusal` unless they come from the viewer's own page: same Origin and the
per-server token the page embeds.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from http import HTTPStatus

LOOPBACK_NAMES = frozenset(("127.0.0.1", "localhost", "[::1]"))

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    )
)

SECURITY_HEADERS: tuple[tuple[str, str], ...] = (
    ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
    ("Cache-Control", "no-store"),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "no-referrer"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
)


def host_allowed(host: str | None) -> bool:
    """True for `127.0.0.1`, `localhost` or `[::1]`, with or without a numeric port."""
    if not host:
        return False
    host = host.strip().lower()
    if host.startswith("["):
        name, _, rest = host.partition("]")
        name += "]"
        port = rest[1:] if rest.startswith(":") else None
        if rest and port is None:
            return False
    else:
        name, sep, port_text = host.partition(":")
        port = port_text if sep else None
    if port is not None and not (port.isascii() and port.isdigit() and 0 < int(port) < 65536):
        return False
    return name in LOOPBACK_NAMES


def host_refusal(hosts: list[str]) -> tuple[HTTPStatus, bytes] | None:
    """Why a request with these `Host` header values is refused, or None to serve it."""
    if len(hosts) > 1:
        return HTTPStatus.BAD_REQUEST, b"bad request: more than one Host header\n"
    if not host_allowed(hosts[0] if hosts else None):
        return HTTPStatus.FORBIDDEN, b"forbidden: not a loopback Host\n"
    return None


TOKEN_HEADER = "X-AGD-Token"
"""The header every state-changing request carries: the server's token, read from its page."""
TOKEN_META = "agd-write-token"
"""The `<meta name=...>` of the page that holds the token (only a same-origin page can read it)."""


def post_refusal(
    headers: Mapping[str, str], token: str, port: int
) -> tuple[HTTPStatus, bytes] | None:
    """Why a POST is refused, or None to do it. The request must come from the viewer's own
    page: its `Origin` is this server (`http://<loopback>:<port>`, the Host already checked),
    a browser's `Sec-Fetch-Site` (when sent) says same-origin, and it carries the
    per-server token embedded in the page (a page of another origin can neither read the
    token nor send the header without a preflight, which is refused)."""
    origin = (headers.get("Origin") or "").strip().lower()
    host = (headers.get("Host") or "").strip().lower()
    scheme, sep, name = origin.partition("://")
    if not sep or scheme != "http" or name != host or not host_allowed(name):
        return HTTPStatus.FORBIDDEN, b"forbidden: not from the viewer's own page (Origin)\n"
    if not name.endswith(f":{port}"):
        return HTTPStatus.FORBIDDEN, b"forbidden: not from the viewer's own page (port)\n"
    site = headers.get("Sec-Fetch-Site")
    if site is not None and site.strip().lower() != "same-origin":
        return HTTPStatus.FORBIDDEN, b"forbidden: a cross-site request\n"
    given = headers.get(TOKEN_HEADER) or ""
    if not hmac.compare_digest(given.encode("utf-8", "replace"), token.encode()):
        return HTTPStatus.FORBIDDEN, b"forbidden: missing or wrong token; reload the page\n"
    if (headers.get("Content-Type") or "").split(";")[0].strip().lower() != "application/json":
        return HTTPStatus.UNSUPPORTED_MEDIA_TYPE, b"send application/json\n"
    return None


def cookie_name(port: int) -> str:
    """The viewer's cookie: per port, since a browser shares cookies across the ports of
    one host."""
    return f"agd_viewer_{port}"


def visitor(cookie: str | None, query: str, secret: str, port: int) -> str | None:
    """How a request proves it comes from the user who started the viewer: `"cookie"` (set
    by an earlier visit), `"query"` (the `?token=` of the address the command printed,
    answered with the cookie), or None. Another local user can reach the port but has
    neither, as with a local notebook server's token."""
    from http.cookies import CookieError, SimpleCookie
    from urllib.parse import parse_qs

    def same(given: str) -> bool:
        return hmac.compare_digest(given.encode("utf-8", "replace"), secret.encode())

    if cookie:
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(cookie)
        except CookieError:
            jar = SimpleCookie()
        held = jar.get(cookie_name(port))
        if held is not None and same(held.value):
            return "cookie"
    given = parse_qs(query).get("token", [""])[0]
    return "query" if given and same(given) else None


NO_TOKEN = (
    b"forbidden: open the address `agd-memory view` printed (it carries this viewer's "
    b"token); the page then remembers it in a cookie\n"
)
