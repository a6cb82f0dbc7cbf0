"""The local web viewer: a standard-library HTTP server and a single static page.

`server.main` is the `agd-memory view` verb. The server reads memory only through
the store (`agd_memory.store`) and the one resolver (`agd_memory.paths`); the page
gets JSON and renders every memory string as text, never as HTML.

Modules: `catalog` (which memory files exist and the opaque keys that name them),
`payload` (the JSON the page reads), `assets` (the fixed allow-list of files the
server may send), `guard` (Host check and security headers), `server` (HTTP and
the command line).
"""
