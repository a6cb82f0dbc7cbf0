"""Verb inflections as stopwords, feedback re-ranking for requests of work, and co-occurrence credit."""

from __future__ import annotations

from recall_helpers import FILLER, entry, ids

from agd_memory.recall.analyzer import Analyzer
from agd_memory.recall.eval.features import DEFAULT
from agd_memory.recall.eval.variants import VariantAnalyzer
from agd_memory.recall.front import prompt_words
from agd_memory.recall.text import builtin_stopwords

BLOCKS = [
    *FILLER,
    entry(
        "backup-nightly",
        desc="nightly database backup with restic",
        body="The database is dumped at 02:00 and restic sends it offsite.",
    ),
    entry(
        "backup-restore-drill",
        desc="monthly restore drill of the restic backup",
        body="Restore the latest snapshot into a scratch database once a month.",
    ),
]


def test_every_person_of_the_common_italian_verbs_is_a_stopword() -> None:
    verbs = builtin_stopwords("it", verbs=True)
    for form in ("facciamo", "avremmo", "sarebbero", "potevamo", "dovrebbe", "vogliono"):
        assert form in verbs
        assert form not in builtin_stopwords("it")  # only with the feature
    # forms that usually name a thing stay content words
    for noun in ("stato", "stati", "faccia", "potere", "dovere"):
        assert noun not in verbs


def test_english_verb_forms_and_contraction_stems_are_stopwords() -> None:
    verbs = builtin_stopwords("en", verbs=True)
    for form in ("went", "gotten", "making", "wasn", "doesn", "needed"):
        assert form in verbs


def test_verb_forms_leave_only_the_topic_words(make_settings) -> None:
    settings = make_settings()
    analyzer = Analyzer()
    prompt = "come facciamo adesso i backup del database?"
    assert len(prompt_words(prompt, analyzer, settings)) == 2
    without = DEFAULT - {"verb-forms"}
    assert len(prompt_words(prompt, VariantAnalyzer(without), settings)) == 3


def test_reporting_verbs_are_no_evidence_of_a_topic(make_settings) -> None:
    # "the help text says ...": `says` matched every rule of work whose body says
    # something (real-use dev set, issue 26); `seems` likewise
    settings = make_settings()
    analyzer = Analyzer()
    for prompt, verb in (
        ("the scan subcommand says recieve", "says"),
        ("the actions cache never seems to hit", "seems"),
    ):
        words = prompt_words(prompt, analyzer, settings)
        assert analyzer.normalize(verb) not in words
        assert len(words) == 3  # scan subcommand recieve; actions cache hit


def test_a_verb_form_no_longer_dilutes_coverage(make_settings) -> None:
    # "facciamo" is a word no block has: as a content word it takes most of the
    # prompt's information and the block's share falls under the floor
    prompt = "come facciamo i backup?"
    assert ids(prompt, BLOCKS, make_settings())[:1] == ["backup-nightly"]


def _index(entries, features=DEFAULT):
    from agd_memory.recall.index import Index

    return Index(entries, VariantAnalyzer(features))


COOC = [
    entry(f"filler-{i}", desc=f"topic {w}", body=f"{w} notes")
    for i, w in enumerate(
        ["billing", "search", "mobile", "printer", "office", "travel", "invoice", "payroll"]
        + ["garden", "music", "parking", "coffee"]
    )
] + [
    entry("opening-hours", desc="opening hours", body="zamboni ice dawn"),
    entry("blade-upkeep", desc="blade upkeep", body="zamboni sharpening ice"),
    entry("ice-schedule", desc="ice schedule", body="closed summer"),
    entry("kayak-trip", desc="kayak trip", body="zamboni joke"),
]


def norm(word: str) -> str:
    return Analyzer().normalize(word)


def test_cooccurrence_learns_neighbours_from_the_memory_itself() -> None:
    from agd_memory.recall.cooccurrence import cooccurrence_terms

    index = _index(COOC)
    terms = cooccurrence_terms(frozenset({norm("zamboni")}), index)
    # ice shares two blocks with zamboni; kayak shares only one (chance)
    assert terms == {norm("ice"): norm("zamboni")}
    # a word no block has, or a very common one, has no neighbours
    assert cooccurrence_terms(frozenset({"unheardof"}), index) == {}


def test_cooccurrence_credits_the_prompt_word_but_never_anchors(make_settings) -> None:
    from agd_memory.recall.cooccurrence import cooccurrence_matches
    from agd_memory.recall.scoring import Prompt, score_all_bm25

    index = _index(COOC)
    word = norm("zamboni")
    prompt = Prompt.build([word], index.analyzer, fuzzy=False)
    before = score_all_bm25(index, prompt)
    after = cooccurrence_matches(before, index, prompt, index.analyzer)
    by_id = {m.doc.id: m for m in after}
    assert "ice-schedule" not in {m.doc.id for m in before}
    assert word in by_id["ice-schedule"].covered
    assert word not in by_id["ice-schedule"].matched
    assert not by_id["ice-schedule"].anchor_exact
    # blocks that have the word keep their evidence and score
    for m in before:
        assert by_id[m.doc.id].score >= m.score
        assert by_id[m.doc.id].anchor_exact == m.anchor_exact


def test_a_word_in_many_blocks_stands_for_no_rare_word() -> None:
    # In a large memory a common word can share a rare word's two blocks far more often
    # than chance, yet crediting every block that has it would reach a large part of the
    # memory for each such prompt word (the prompt hook's cost would grow with the memory)
    from agd_memory.recall.cooccurrence import COOC_MAX_DF, cooccurrence_terms

    common = [
        entry(f"rink-{i}", desc=f"rink note {i}", body=f"ice surface report {i}")
        for i in range(COOC_MAX_DF + 1)
    ]
    other = [entry(f"other-{i}", desc=f"other topic {i}", body="unrelated") for i in range(90)]
    rare = [
        entry("zamboni-a", desc="resurfacing", body="zamboni ice"),
        entry("zamboni-b", desc="machine", body="zamboni ice"),
    ]
    index = _index(common[2:] + other + rare)  # ice in exactly COOC_MAX_DF + 1 blocks
    assert index.df_of(norm("ice")) == COOC_MAX_DF + 1
    assert cooccurrence_terms(frozenset({norm("zamboni")}), index) == {}
    fewer = _index(common[3:] + other + rare)  # one block fewer: ice is rare enough
    assert cooccurrence_terms(frozenset({norm("zamboni")}), fewer) == {norm("ice"): norm("zamboni")}
