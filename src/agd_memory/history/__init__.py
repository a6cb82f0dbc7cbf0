"""The session history: every exchange of every session, redacted, searchable, never injected.

`exchanges` turns a Claude Code transcript into exchanges (the distiller's hygiene,
then the secret detector); `files` keeps them as AGD, one file per session under
`<memory folder>/history/<YYYY-MM>/`, with listing, forgetting and retention;
`search` ranks them with recall's analyzer.
"""
