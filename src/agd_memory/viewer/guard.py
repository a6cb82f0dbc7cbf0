"""What every response carries, and which requests are refused before any work.

DNS rebinding: a web page on `evil.example` can make its own name resolve to
127.0.0.1 and then read `http://evil.example:8765/memory.json` as same-origin.
The browser still sends `Host: evil.example:8765`, so anything but a loopback
name is refused with 403 (the earlier viewer had no such check). A request with
two `Host` headers is malformed (RFC 9112 §3.2) and refused with 400: reading only
the first would let a proxy and this server disagree on which host was asked.
"""

from __future__ import annotations

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
    if port is not None and not (port.isdigit() and 0 < int(port) < 65536):
        return False
    return name in LOOPBACK_NAMES


def host_refusal(hosts: list[str]) -> tuple[HTTPStatus, bytes] | None:
    """Why a request with these `Host` header values is refused, or None to serve it."""
    if len(hosts) > 1:
        return HTTPStatus.BAD_REQUEST, b"bad request: more than one Host header\n"
    if not host_allowed(hosts[0] if hosts else None):
        return HTTPStatus.FORBIDDEN, b"forbidden: not a loopback Host\n"
    return None
