"""Auto-recall and ranked search over the memory layers (standard library only).

`recall(prompt, files, settings)` is what the UserPromptSubmit hook injects;
`search.search(query, files, settings)` is the ranked search behind the MCP tool and
`agd-memory search`. Module map: `text` (tokens, stopwords), `cognates`, `scoring`,
`policy` (gates, floors, budget), `engine` (the pipeline), `render`, `search`,
`evaluate` (the eval harness), `features` (the measured changes over the reference).
"""

from __future__ import annotations

from .engine import RecallResult, Scored, recall

__all__ = ["RecallResult", "Scored", "recall"]
