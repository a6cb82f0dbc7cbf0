"""agd-memory: persistent, per-project memory for AI coding agents, stored as AGD documents."""

__version__ = "0.1.0"
