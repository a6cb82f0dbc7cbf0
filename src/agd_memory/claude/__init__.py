"""Everything specific to Claude Code, in two directions.

Inbound, an adapter (level 5 of the layer table): `hooks.py` reads a hook's payload and
writes the hook's JSON; only `commands/hook.py` imports it. Outbound, services (level 3)
that distill, maintenance and the adapters call: `headless.py` (`claude -p`), `transcript.py`,
`automemory.py` (its auto-memory folder), `settings_files.py` and `setup.py` (its settings
files), `session_toc.py` (the TOC with the closing lines naming the MCP tools as Claude Code
shows them), `parse_notice.py`. `tests/test_layers.py` holds the split: no service imports
`hooks.py`.
"""
