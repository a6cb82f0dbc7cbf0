"""Ranked search: BM25F order, no gates, kinds, superseded last, excerpts."""

from __future__ import annotations

import pytest
from recall_helpers import ListFile, entry

from agd_memory.errors import UserError
from agd_memory.recall.search import excerpt, search

BLOCKS = [
    entry(
        "deploy-vps", desc="deploy on the VPS", body="Run scripts/deploy.sh; it restarts gunicorn."
    ),
    entry("deploy-old", desc="deploy by FTP", body="Upload with FileZilla.", status="superseded"),
    entry("user-role", kind="x-user", desc="Marco, tech lead", body="Deploys on Fridays only."),
    entry("backup", desc="nightly backups", body="restic at 02:30"),
    entry("h-project", kind="h2", body="Project"),
]


def ids(hits):
    return [h.entry.id for h in hits]


def test_best_first_and_no_gates(make_settings) -> None:
    hits = search("deploy", [ListFile(BLOCKS)], make_settings())
    assert ids(hits)[0] == "deploy-vps"
    assert "backup" not in ids(hits)


def test_superseded_blocks_are_found_but_ranked_lower(make_settings) -> None:
    hits = ids(search("deploy", [ListFile(BLOCKS)], make_settings()))
    assert "deploy-old" in hits
    assert hits.index("deploy-old") > hits.index("deploy-vps")


def test_kind_filter_accepts_both_spellings(make_settings) -> None:
    s = make_settings()
    assert ids(search("deploy", [ListFile(BLOCKS)], s, kind="user")) == ["user-role"]
    assert ids(search("deploy", [ListFile(BLOCKS)], s, kind="x-user")) == ["user-role"]


def test_limit_and_empty_query(make_settings) -> None:
    s = make_settings()
    assert len(search("deploy", [ListFile(BLOCKS)], s, limit=1)) == 1
    assert search("   ", [ListFile(BLOCKS)], s) == []
    assert search("deploy", [], s) == []


def test_headings_are_not_results(make_settings) -> None:
    assert "h-project" not in ids(search("project", [ListFile(BLOCKS)], make_settings()))


@pytest.mark.parametrize("query", ["the a of", "when where", "x"])
def test_query_without_searchable_words_says_so(make_settings, query) -> None:
    # Common words match nearly every block: ranked, they would be arbitrary hits.
    f = [ListFile([entry("when-notes", desc="when and where", body="the when")])]
    with pytest.raises(UserError, match="has no searchable words"):
        search(query, f, make_settings())


def test_case_sensitive_search(make_settings) -> None:
    f = [ListFile([entry("a", desc="Gunicorn workers"), entry("b", desc="gunicorn restart")])]
    s = make_settings()
    assert sorted(ids(search("gunicorn", f, s))) == ["a", "b"]
    assert ids(search("Gunicorn", f, s, ignore_case=False)) == ["a"]


def test_cross_language_query(make_settings) -> None:
    f = [ListFile([entry("fatture", desc="numerazione delle fatture", body="progressivo annuo")])]
    assert ids(search("invoice numbering", f, make_settings())) == ["fatture"]


def test_layer_is_reported(make_settings) -> None:
    g = entry("pref", kind="x-feedback", desc="deploy only on Fridays", layer="global")
    hits = search(
        "deploy fridays", [ListFile(BLOCKS), ListFile([g], layer="global")], make_settings()
    )
    assert {h.entry.id: h.layer for h in hits}["pref"] == "global"


def test_excerpt_centres_on_the_match() -> None:
    e = entry("x", body="a " * 100 + "needle here " + "b " * 100)
    text = excerpt(e, ["needle"])
    assert "needle" in text and text.startswith("…") and text.endswith("…")
    assert len(text) <= 2 * 60 + 2


def test_excerpt_falls_back_to_desc_or_start() -> None:
    assert excerpt(entry("x", desc="only desc"), ["zzz"]) == "only desc"
    assert excerpt(entry("x", body="short body"), ["zzz"]) == "short body"
