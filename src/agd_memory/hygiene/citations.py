"""Moved to `agd_memory.store.coderefs`: recording `code=` is a rule of every write.

This name stays importable while other work still uses it."""

from ..store.coderefs import (  # noqa: F401
    ATTR,
    SAMPLE,
    Citation,
    fingerprint,
    format_record,
    parse_record,
    read_lines,
    record,
    relative_inside,
    root_for,
    sample_kept,
    within,
)
