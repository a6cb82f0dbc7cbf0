"""Moved to `agd_memory.progress` (distill uses it too, and sits beside maintenance)."""

from ..progress import MIN_INTERVAL_S, Progress  # noqa: F401
