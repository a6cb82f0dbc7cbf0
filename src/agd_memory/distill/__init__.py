"""Session-end capture: a detached worker distils durable facts out of a transcript.

The SessionEnd hook (`hook.session_end`) only records the session and starts a
detached worker; the worker (`worker.run`) takes a lock per memory file, gates
the new part of the transcript (`claude/transcript.py`), asks a headless
`claude -p` with no tools for at most three proposals (`claude/headless.py`,
the answer's schema and limits in `schema.py`, `prompt.md`), and writes the
ones that survive validation against those limits, redaction and
de-duplication through the store (`proposals`). Everything is logged in the data folder (`runlog`).

The model only ever returns JSON that our code checks: text inside a transcript
can change what is proposed, never what is executed.
"""

from __future__ import annotations
