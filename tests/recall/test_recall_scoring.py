"""The reference score formula, IDF and cognates (agd-memory-plugin §5.4, §10.3)."""

from __future__ import annotations

import math

from recall_helpers import entry

from agd_memory.recall import cognates
from agd_memory.recall.eval.features import REFERENCE
from agd_memory.recall.eval.reference import score_all, score_doc
from agd_memory.recall.eval.variants import VariantAnalyzer
from agd_memory.recall.scoring import Index, Prompt, recency_key


def uniform_weight(_: str) -> float:
    return 1.0


def one(e, words):
    """The reference score of one entry, with uniform weights (no IDF)."""
    analyzer = VariantAnalyzer(REFERENCE)
    index = Index([e], analyzer)
    return score_doc(
        index.docs[0], Prompt.build(words, analyzer, fuzzy=False), uniform_weight
    ).score


def test_id_hit_scores_3() -> None:
    assert one(entry("deploy-notes"), ["deploy"]) == 3.0


def test_desc_hit_scores_3() -> None:
    assert one(entry("a1", desc="deploy steps"), ["deploy"]) == 3.0


def test_kind_hit_scores_2() -> None:
    assert one(entry("a1", kind="x-feedback"), ["feedback"]) == 2.0


def test_body_hits_use_the_log_normalised_formula() -> None:
    body = "alpha alpha alpha alpha alpha bbb ccc ddd eee fff"
    assert math.isclose(one(entry("zz", body=body), ["alpha"]), 5 / (1 + math.log(11)))


def test_no_overlap_scores_zero() -> None:
    assert one(entry("zz", desc="nothing here", body="at all"), ["deploy"]) == 0.0


def _index(entries):
    return Index(entries, VariantAnalyzer(REFERENCE))


def test_rare_token_outweighs_common_and_idf_is_at_least_1() -> None:
    entries = [entry(f"b{i}", body="common word") for i in range(5)] + [
        entry("r", body="rare common")
    ]
    idx = _index(entries)
    assert idx.weight("rare") > idx.weight("common") >= 1.0
    assert all(v >= 1.0 for v in idx.idf.values())


def test_distinctive_match_ranks_first() -> None:
    entries = [entry(f"b{i}", body="database setup") for i in range(4)] + [
        entry("special", body="database kubernetes")
    ]
    idx = _index(entries)
    matches = score_all(idx, Prompt.build(["database", "kubernetes"], idx.analyzer, fuzzy=False))
    best = max(matches, key=lambda m: m.score)
    assert best.doc.entry.id == "special"


def test_idf_counts_blocks_not_occurrences() -> None:
    idx = _index([entry("a", body="word word word"), entry("b", body="other")])
    assert idx.df["word"] == 1


def test_empty_corpus_has_empty_idf() -> None:
    assert _index([]).idf == {}


def test_unknown_word_weighs_1() -> None:
    assert _index([entry("a", body="hello")]).weight("absent") == 1.0


def _score(e, words, fuzzy):
    an = VariantAnalyzer(REFERENCE)
    idx = Index([e], an)
    return score_doc(idx.docs[0], Prompt.build(words, an, fuzzy=fuzzy), uniform_weight)


def test_cognates_bridge_catalogue_to_catalogo_only_with_fuzzy() -> None:
    e = entry("x", desc="catalogo prodotti")
    assert _score(e, ["catalogue"], fuzzy=False).score == 0
    m = _score(e, ["catalogue"], fuzzy=True)
    assert m.score == 3.0 * 0.5
    assert m.anchor_cognates == {"catalogue"}


def test_four_character_prefixes_are_not_cognates() -> None:
    assert _score(entry("x", desc="modo"), ["mode"], fuzzy=True).score == 0


def test_exact_hit_outranks_cognate_hit() -> None:
    exact = _score(entry("x", desc="catalogue"), ["catalogue"], fuzzy=True).score
    cognate = _score(entry("y", desc="catalogo"), ["catalogue"], fuzzy=True).score
    assert exact > cognate > 0


def test_improved_cognate_keys_survive_spelling_shifts() -> None:
    assert cognates.improved_key("fattura") == cognates.improved_key("factura")
    assert cognates.improved_key("esportazione")[:4] == cognates.improved_key("export")[:4]
    assert cognates.reference_key("fattura") != cognates.reference_key("factura")


def test_stem_maps_plurals_together_and_leaves_short_words() -> None:
    assert cognates.stem("backups") == cognates.stem("backup")
    assert cognates.stem("fatture") == cognates.stem("fattura")
    assert cognates.stem("note") == "note"
    assert cognates.stem("v2") == "v2"


def test_a_word_ending_in_ss_meets_its_plural_and_past() -> None:
    # issue 26: `process` lost its last s as if it were a plural, and never met
    # `processes` or `processed`; `compress` became `compres`, Italian `compresa` (included)
    for word in ("process", "address", "access", "class", "compress"):
        assert cognates.stem(word) == cognates.stem(word + "es") == cognates.stem(word + "ed")
    assert cognates.stem("compresa") != cognates.stem("compress")


def test_y_ies_ied_and_ings_forms_meet() -> None:
    # issue 26: `entry` never met `entries`, `retry` never `retried`, `warning` never
    # `warnings` (one ending stripped from each left two different stems)
    for forms in [
        ("entry", "entries"),
        ("retry", "retries", "retried"),
        ("apply", "applies", "applied", "applying"),
        ("verify", "verified"),
        ("category", "categories", "categorie"),
        ("series", "serie"),
        ("warning", "warnings"),
        ("setting", "settings"),
    ]:
        assert len({cognates.stem(w) for w in forms}) == 1, forms
    # three-letter roots: `named` never met `name`, nor `fixed` the fix concept's `fix`
    for forms in [
        ("name", "named", "naming"),
        ("code", "coded", "coding"),
        ("fix", "fixed", "fixing"),
        ("add", "added", "adding"),
        ("save", "saved", "saving"),
    ]:
        assert len({cognates.stem(w) for w in forms}) == 1, forms
    # and words that only look alike stay apart
    for a, b in [
        ("ready", "read"),
        ("story", "store"),
        ("party", "part"),
        ("speed", "spe"),
        ("string", "str"),
        ("embed", "emb"),
    ]:
        assert cognates.stem(a) != cognates.stem(b), (a, b)


def test_recency_key_tolerates_missing_and_malformed_dates() -> None:
    assert recency_key("2026-01-31") == 20260131
    assert recency_key(None) == 0
    assert recency_key("soon") == 0
    assert recency_key("2026-1") == 0
