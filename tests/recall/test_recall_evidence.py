"""The rules added after the first tuning round: evidence, coverage-multi, lexicon
ambiguity, the multi-language stemmer, and eval corpora found relative to the cases file."""

from __future__ import annotations

import json
from pathlib import Path

from recall_helpers import FILLER, ListFile, entry, ids, write_memory

from agd_memory.recall import cognates, lexicon, recall
from agd_memory.recall.analyzer import Analyzer
from agd_memory.recall.eval import evaluate, variants
from agd_memory.recall.eval.features import DEFAULT

GUNICORN = entry(
    "opening-hours",
    kind="x-feedback",
    desc="no restarts while the shop is open",
    body="Never restart gunicorn or nginx between 8 and 19; hotfix only after approval.",
)
BLOCKS = [*FILLER, GUNICORN]


def test_three_body_words_anchor_a_block(make_settings) -> None:
    prompt = "reload gunicorn and nginx now, hotfix pending"
    assert ids(prompt, BLOCKS, make_settings()) == ["opening-hours"]
    # without the rule the block has no id/desc word and is not injected
    assert ids(prompt, BLOCKS, make_settings(), DEFAULT - {"evidence"}) == []


def test_two_body_words_are_not_enough_evidence(make_settings) -> None:
    assert (
        ids("compare gunicorn with nginx performance benchmarks latency", BLOCKS, make_settings())
        == []
    )


def test_one_matched_word_needs_a_larger_share_than_several(make_settings) -> None:
    # one desc word in a three-word prompt: about 28% of the prompt's IDF mass
    one = "printer thermal labels"
    assert ids(one, BLOCKS, make_settings()) == []
    # cue-strict raises the flat share of a prompt that does not refer to the past
    assert ids(one, BLOCKS, make_settings(), DEFAULT - {"coverage-multi", "cue-strict"}) == [
        "note-3"
    ]


def test_a_stem_two_groups_share_maps_to_neither() -> None:
    groups = [["test", "prova"], ["text", "testo"]]
    mapping = lexicon.build_map(groups, lambda w: [w], cognates.stem)
    assert mapping["test"] == mapping["prova"] != mapping["testo"] == mapping["text"]


def test_builtin_groups_keep_false_friends_apart() -> None:
    an = Analyzer()
    n = an.normalize
    assert n("test") == n("prova") and n("test") != n("testo")
    assert n("command") == n("comando") and n("command") != n("order")
    assert n("importo") == n("amount") and n("import") != n("amount")
    assert n("fattura") == n("invoice") == n("fatture")


def test_concept_list_has_no_word_in_two_groups() -> None:
    words = [w for g in lexicon.builtin_groups() for w in set(g)]
    dupes = sorted({w for w in words if words.count(w) > 1})
    # a repeated whole word silently merges two meanings into one concept
    assert dupes == [], dupes


def test_eval_corpus_path_is_relative_and_its_global_sits_beside_it(
    tmp_path: Path, make_settings
) -> None:
    mem = tmp_path / "mem"
    mem.mkdir()
    write_memory(
        mem / "project.agd",
        [
            '@x-project desc="nightly backups with restic" [#backup-restic]\n~~~\nrestic at 02:30\n~~~\n'
        ],
    )
    write_memory(
        mem / "global.agd",
        ['@x-feedback desc="fish shell syntax for commands" [#fish]\n~~~\nset -x NAME v\n~~~\n'],
    )
    cases_dir = tmp_path / "cases"
    cases_dir.mkdir()
    cases = cases_dir / "c.json"
    c = [
        {"corpus": "../mem/project.agd", "lang": "en", "prompt": "restic backups nightly schedule", "expect": "backup-restic"},
        {"corpus": "../mem/project.agd", "lang": "en", "prompt": "fish shell syntax for commands", "expect": "fish"},
    ]  # fmt: skip
    cases.write_text(json.dumps({"cases": c}), encoding="utf-8")
    s = evaluate.run(cases, make_settings()).summary()
    assert s["positives"]["hit1"] == 2


def test_a_superseding_block_inherits_the_old_blocks_match(make_settings) -> None:
    old = entry(
        "backup-dropbox",
        desc="nightly dump copied to Dropbox",
        body="pg_dump at 02:30, rclone to Dropbox, 30 days kept.",
        status="superseded",
    )
    new = entry(
        "backup-restic",
        desc="backups with restic on B2",
        body="restic snapshots of the database and media, monthly restore test.",
        supersedes=("backup-dropbox",),
    )
    mem = [ListFile([*FILLER, old, new])]
    prompt = "where does the nightly Dropbox dump go"
    got = [str(c.entry.id) for c in recall(prompt, mem, make_settings()).chosen]
    assert got == ["backup-restic"]
    without = variants.recall(prompt, mem, make_settings(), DEFAULT - {"inherit"})
    assert "backup-restic" not in [str(c.entry.id) for c in without.chosen]
    # the old block itself is never injected
    assert "backup-dropbox" not in got


K3S = entry(
    "deploy-k3s",
    desc="deploys run on k3s through Argo CD, one app per service",
    body="Argo CD syncs the main branch to the staging cluster; production syncs from tags."
    " Grafana has a dashboard per service with pod memory and restarts.",
)


def test_a_few_words_the_block_only_mentions_need_a_one_word_share(make_settings) -> None:
    """unnamed: three words of the block's body (Grafana, staging, dashboard) in a longer
    question about something else are the project's words, not the block's subject; the
    same question naming it (deploys, k3s: its desc) still gets it."""
    settings = make_settings()
    blocks = [K3S, *FILLER]
    gap = "why does Grafana show a gap in the staging dashboard every night after the backup job finishes?"
    assert ids(gap, blocks, settings) == []
    assert ids(gap, blocks, settings, DEFAULT - {"unnamed"}) == ["deploy-k3s"]
    named = "why do deploys on k3s show a gap in the staging dashboard every night after the backup job finishes?"
    assert ids(named, blocks, settings) == ["deploy-k3s"]
