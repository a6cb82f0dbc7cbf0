"""Command-line verbs of `agd-memory`, one module per area."""
