"""Memory hygiene: entries whose code citations went stale, and entries nobody uses.

`citations.py` finds what an entry cites (paths, line ranges, `symbol()` names) when it
is written and records it as the entry's `code=` attribute, so the record travels with
the file and with git; `staleness.py` checks those records against the repository
(cached per memory file, verified by the cited files' identities); `usage.py` counts
recall and `get` in an append-only log of the data folder. Nothing here deletes or
rewrites an entry: `agd-memory stale` reports, the user decides.
"""
