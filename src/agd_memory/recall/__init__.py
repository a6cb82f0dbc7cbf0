"""Auto-recall and ranked search over the memory layers (standard library only).

`recall(prompt, files, settings)` is what the UserPromptSubmit hook injects;
`search.search(query, files, settings)` is the ranked search behind the MCP tool and
`agd-memory search`; both start from `front.Front`. Module map: `text` (tokens,
stopwords), `cognates`, `analyzer`, `index`, `scoring`, `front` (files, analyzer, query
words, index: what recall and search share), `cooccurrence` (BM25F plus co-occurrence
credit, both score with it), `policy` (gates, floors, budget), `engine` (recall's
pipeline, frozen, no switches), `render`, `search`; `eval/` (off the hook path):
`evaluate` (the harness), `features` (the measured changes over the reference by name),
`variants` (recall with any set of them, and `VariantAnalyzer`: the reference algorithm),
`reference` (the earlier plugin's score formula).
"""

from __future__ import annotations

from .engine import RecallResult, Scored, recall

__all__ = ["RecallResult", "Scored", "recall"]
