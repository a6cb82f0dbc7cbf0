"""The recall-dev evaluation set, run through the hook's own path (`agd-memory eval`).

Three checks:
- the reference algorithm reproduces the published baseline (BASELINE.md), so the
  harness measures what it claims to;
- the default recall stays at or above the level measured when it was tuned (a
  regression guard; the numbers are in benchmarks/README.md);
- the issue's targets (hit@1 >= 85%, recall@3 >= 90%, false injections <= 2%, median
  tokens <= 400), marked xfail while they are not met: the lexical recall reaches 67%
  hit@1 on this set, 76% on the same memories with search keys (paraphrases and implicit
  requests share few words with their block). `xfail_strict` turns the mark into a
  failure the day the targets are met;
- the ranked-search target: recall@5 at least 5 points above a plain BM25 over the same
  blocks, with and without keys.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from eval_helpers import assert_floors
from eval_helpers import summary as summary_of

from agd_memory.commands.recall import eval_settings
from agd_memory.recall.eval import evaluate
from agd_memory.recall.eval.features import DEFAULT, REFERENCE

REPO = Path(__file__).resolve().parents[2]
CASES = REPO / "tests" / "data" / "recall-dev" / "cases.json"
KEYED = REPO / "tests" / "data" / "recall-dev-keyed"


def summary(features, *overrides: str, override: Path | None = None) -> dict:
    return summary_of(CASES, features, *overrides, override=override)


def test_reference_reproduces_the_published_baseline() -> None:
    s = summary(REFERENCE, "AGD_RECALL_LANGS=en,it")
    assert (s["positives"]["hit1"], s["positives"]["recall3"]) == (26, 30)
    assert s["positives"]["cases"] == 75
    assert (s["negatives"]["false_injections"], s["negatives"]["runs"]) == (15, 68)


def test_reference_variants_reproduce_the_published_table() -> None:
    off = summary(REFERENCE, "AGD_RECALL_LANGS=en,it", "AGD_RECALL_NO_FUZZY=1")
    assert (off["positives"]["hit1"], off["positives"]["recall3"]) == (25, 29)
    assert off["negatives"]["false_injections"] == 14
    one = summary(REFERENCE, "AGD_RECALL_LANGS=en,it", "AGD_RECALL_FUZZY_ANCHOR_MIN=1")
    assert (one["positives"]["hit1"], one["positives"]["recall3"]) == (30, 35)
    assert one["negatives"]["false_injections"] == 16


def test_default_recall_does_not_regress() -> None:
    # measured 45/75, 52/75, 0/68 since a prompt whose only cue word is `we` needs the plain
    # share (46/75, 53/75 before: `how do we invoice the town council? ...` lost the
    # split-payment entry; 47/75, 54/75 before a rule a request for work names by one word of
    # its own needed half of it; benchmarks/README.md, issue 26's eighth pass)
    assert_floors(summary(DEFAULT), 45, 52, 0)


def test_default_beats_the_reference_on_every_measure() -> None:
    ref = summary(REFERENCE, "AGD_RECALL_LANGS=en,it")
    new = summary(DEFAULT)
    assert new["positives"]["hit1"] > ref["positives"]["hit1"]
    assert new["positives"]["recall3"] > ref["positives"]["recall3"]
    assert new["negatives"]["false_injections"] < ref["negatives"]["false_injections"]


def test_keys_help_without_costing_precision() -> None:
    """The same memories with keys written by a model that never saw the cases
    (tests/data/recall-dev-keyed/README.md): more hits, no more false injections."""
    plain = summary(DEFAULT)
    keyed = summary(DEFAULT, override=KEYED)
    # measured 57/75, 60/75, 0/68 since a block matching a few words none of which names it
    # needs a one-word share (56/75 before; benchmarks/README.md, issue 26's sixth to ninth
    # passes, has the numbers before it)
    assert keyed["positives"]["hit1"] >= 57 > plain["positives"]["hit1"]
    assert keyed["positives"]["recall3"] >= 60 > plain["positives"]["recall3"]
    assert keyed["negatives"]["false_injections"] <= min(1, plain["negatives"]["false_injections"])
    assert keyed["positives"]["tokens_median"] <= 400


def test_keys_are_matched_only_with_the_keys_feature() -> None:
    without = summary(DEFAULT - {"keys"}, override=KEYED)
    assert without == summary(DEFAULT - {"keys"})


@pytest.mark.xfail(strict=True, reason="issue 5 targets not reached yet (see benchmarks/README.md)")
def test_issue_targets() -> None:
    s = summary(DEFAULT)
    pos, neg = s["positives"], s["negatives"]
    assert pos["hit1_rate"] >= 0.85
    assert pos["recall3_rate"] >= 0.90
    assert neg["false_injection_rate"] <= 0.02
    assert pos["tokens_median"] <= 400


@pytest.mark.parametrize("override", [None, KEYED], ids=["plain", "keyed"])
def test_ranked_search_beats_plain_bm25_by_five_points(override) -> None:
    # measured 65 vs 54 and 71 vs 65 of 75 (benchmarks/README.md, "Seventh round")
    ranked, bm25, total = evaluate.search_recall(CASES, eval_settings([]), override=override)
    assert (ranked - bm25) / total >= 0.05


@pytest.mark.parametrize("name", ["it-gestionale", "en-mobile", "global"])
def test_keyed_memories_are_what_agd_memory_keys_writes(name, keys_rebuild) -> None:
    """tests/data/recall-dev-keyed is reproducible: the saved model answer applied to the
    original memory by `agd-memory keys --from ... --apply` gives the file byte for byte."""
    rebuilt = keys_rebuild(CASES.parent / f"{name}.agd", KEYED)
    assert rebuilt == (KEYED / f"{name}.agd").read_bytes()


def test_missing_eval_data_fails_loudly(tmp_path) -> None:
    from agd_memory.errors import UserError

    empty = tmp_path / "cases.json"
    empty.write_text('{"cases": []}', encoding="utf-8")
    with pytest.raises(UserError, match="empty"):
        summary_of(empty)
    with pytest.raises(UserError, match="no such cases file"):
        summary_of(tmp_path / "missing.json")
    with pytest.raises(UserError, match="no such folder"):
        summary_of(CASES, override=tmp_path / "no-keyed-folder")


def test_the_default_variant_is_the_engine_on_every_dev_case() -> None:
    # the evaluation's switched pipeline with every measured change on is what the hook runs
    from agd_memory.recall import engine
    from agd_memory.recall.eval import variants

    settings = eval_settings([])
    cases = evaluate.load_cases(CASES)
    files = evaluate.corpus_files(CASES, cases, settings, None)
    for case in cases:
        for name in sorted(files) if case.get("expect") is None else [case["corpus"]]:
            frozen = engine.recall(case["prompt"], files[name], settings)
            switched = variants.recall(case["prompt"], files[name], settings, DEFAULT)
            assert switched == frozen, case["prompt"]
