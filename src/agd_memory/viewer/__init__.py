"""The local web viewer: a standard-library HTTP server and a single static page.

`server.serve` runs the `agd-memory view` verb. The server reads memory only through
the store (`agd_memory.store`) and the one resolver (`agd_memory.paths`); the page
gets JSON and renders every memory string as text, never as HTML.

Modules: `catalog` (which memory files exist and the opaque keys that name them),
`payload` (the JSON the page reads, encoded once per file version), `assets` (the
fixed allow-list of files the server may send), `guard` (Host check and security
headers), `limits` (how many connections, and how long each may take to send its
request), `history` (the History tab: past sessions listed, searched, read and forgotten
through `agd_memory.history`), `server` (HTTP, and `serve` for the `view` verb).
"""
