"""Properties: recall and search never raise on any prompt and respect their limits."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from recall_helpers import ListFile, entry

from agd_memory.errors import UserError
from agd_memory.recall.eval import variants
from agd_memory.recall.eval.features import DEFAULT, REFERENCE
from agd_memory.recall.search import search
from agd_memory.settings import Settings

FILES = [
    ListFile(
        [
            entry("deploy-vps", desc="deploy on the VPS", body="Run scripts/deploy.sh; 部署方案"),
            entry("fatture", desc="numerazione fatture", body="progressivo annuo v2 s3"),
            entry("old", desc="deploy by ftp", body="x", status="superseded"),
        ]
    )
]
SETTINGS = Settings.load({"CLAUDE_PLUGIN_DATA": "/nonexistent/agd-memory-test"})

pytestmark = pytest.mark.property


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.text(max_size=300), st.sampled_from([DEFAULT, REFERENCE]))
def test_recall_never_raises_and_respects_top_k(prompt: str, feats) -> None:
    result = variants.recall(prompt, FILES, SETTINGS, feats)
    assert (result.skipped is None) == bool(result.chosen)
    assert len(result.chosen) <= SETTINGS.recall_top_k
    assert all(c.entry.id != "old" for c in result.chosen)
    text = result.render()
    assert (text == "") == (result.skipped is not None)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200), st.integers(min_value=1, max_value=5))
def test_search_never_raises_and_respects_limit(query: str, limit: int) -> None:
    try:
        hits = search(query, FILES, SETTINGS, limit=limit)
    except UserError as exc:  # the one refusal: a query of common words or letters only
        assert exc.reason == "stopwords"
        return
    assert len(hits) <= limit
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
