"""`recall()` end to end: every AGD_RECALL_* variable, the layers, rendering, features."""

from __future__ import annotations

from recall_helpers import ListFile, block, entry

from agd_memory.recall import front, policy, recall
from agd_memory.recall.eval import variants
from agd_memory.recall.eval.features import DEFAULT, REFERENCE

DEPLOY = entry(
    "deploy-vps",
    desc="deploy on the VPS with the release script",
    body="Run scripts/deploy.sh after make check; it restarts gunicorn.",
)
BACKUP = entry(
    "backup-restic",
    desc="nightly backups with restic to B2",
    body="restic runs at 02:30 and keeps 7 daily snapshots.",
)
GLOBAL = entry(
    "pref-commit-style",
    kind="x-feedback",
    desc="commit messages in English, imperative",
    body="Subject under 72 characters.",
    layer="global",
)
PROMPT = "how do we deploy the release script to the VPS?"


def files():
    return [ListFile([DEPLOY, BACKUP]), ListFile([GLOBAL], layer="global")]


def test_recall_picks_the_matching_block_and_renders_agd(make_settings) -> None:
    result = recall(PROMPT, files(), make_settings())
    assert result.skipped is None
    assert [s.entry.id for s in result.chosen] == ["deploy-vps"]
    text = result.render()
    assert text.startswith("[agd-memory:auto-recall] 1 block matched this prompt (#deploy-vps)")
    assert (
        '@x-project desc="deploy on the VPS with the release script" [#deploy-vps]\n~~~\n' in text
    )
    assert result.chosen[0].layer == "project"


def test_skip_reason_and_empty_render(make_settings) -> None:
    result = recall("ok", files(), make_settings())
    assert result.skipped == policy.BELOW_MIN_WORDS
    assert result.render() == ""


def test_disabled(make_settings) -> None:
    assert (
        recall(PROMPT, files(), make_settings(AGD_RECALL_DISABLED="1")).skipped == policy.DISABLED
    )


def test_zero_does_not_disable(make_settings) -> None:
    # the reference treated any non-empty value, even "0", as on
    assert recall(PROMPT, files(), make_settings(AGD_RECALL_DISABLED="0")).skipped is None


def test_no_files_and_no_blocks(make_settings) -> None:
    assert recall(PROMPT, [], make_settings()).skipped == policy.NO_MEMORY
    assert recall(PROMPT, [ListFile([])], make_settings()).skipped == policy.NO_BLOCKS


def test_nothing_relevant(make_settings) -> None:
    result = recall("recipe for a lemon cake with almonds", files(), make_settings())
    assert result.skipped == policy.NO_MATCH


def test_max_prompt_chars(make_settings) -> None:
    s = make_settings(AGD_RECALL_MAX_PROMPT_CHARS="20")
    assert recall(PROMPT, files(), s).skipped == policy.TOO_LONG


def test_min_words_and_min_word_len(make_settings) -> None:
    s = make_settings(AGD_RECALL_MIN_WORDS="9")
    assert variants.recall(PROMPT, files(), s, REFERENCE).skipped == policy.BELOW_MIN_WORDS
    # the short-prompt gate lets a prompt through whose words hit an id or desc exactly
    assert recall(PROMPT, files(), s).skipped is None
    s = make_settings(AGD_RECALL_MIN_WORD_LEN="8")
    assert (
        variants.recall("deploy release script vps", files(), s, REFERENCE).skipped
        == policy.BELOW_MIN_WORDS
    )


def test_code_line_ratio(make_settings) -> None:
    code = "deploy release script\n" + "".join(f"  step{i} deploy\n" for i in range(5))
    assert recall(code, files(), make_settings()).skipped == policy.CODE_PASTE
    assert (
        recall(code, files(), make_settings(AGD_RECALL_CODE_LINE_RATIO="0.99")).skipped
        != policy.CODE_PASTE
    )


def test_no_global_leaves_the_global_layer_out(make_settings) -> None:
    prompt = "commit messages style in English please"
    assert [s.entry.id for s in recall(prompt, files(), make_settings()).chosen] == [
        "pref-commit-style"
    ]
    assert recall(prompt, files(), make_settings(AGD_RECALL_NO_GLOBAL="1")).chosen == []


def test_top_k(make_settings) -> None:
    filler = [entry(f"note-{i}", desc=f"unrelated note {i}", body="lorem ipsum") for i in range(10)]
    many = filler + [
        entry(f"deploy-{i}", desc=f"deploy release script variant {i}") for i in range(6)
    ]
    s = make_settings(AGD_RECALL_TOP_K="2", AGD_RECALL_MIN_SCORE_RATIO="0")
    assert len(recall(PROMPT, [ListFile(many)], s).chosen) == 2


def test_min_score_floor(make_settings) -> None:
    assert (
        recall(PROMPT, files(), make_settings(AGD_RECALL_MIN_SCORE="1000")).skipped
        == policy.NO_MATCH
    )


def test_allow_superseded(make_settings) -> None:
    old = entry(
        "deploy-ftp", desc="deploy the release script by ftp to the VPS", status="superseded"
    )
    assert recall(PROMPT, [ListFile([old])], make_settings()).chosen == []
    s = make_settings(AGD_RECALL_ALLOW_SUPERSEDED="1")
    assert [c.entry.id for c in recall(PROMPT, [ListFile([old])], s).chosen] == ["deploy-ftp"]


def test_allow_body_only(make_settings) -> None:
    only_body = entry("zz-notes", desc="misc", body="gunicorn restarts nightly; gunicorn workers 4")
    prompt = "why does gunicorn restart, gunicorn workers"
    r = variants.recall(prompt, [ListFile([only_body])], make_settings(), REFERENCE)
    assert r.chosen == []
    s = make_settings(AGD_RECALL_ALLOW_BODY_ONLY="1")
    assert [
        c.entry.id for c in variants.recall(prompt, [ListFile([only_body])], s, REFERENCE).chosen
    ] == ["zz-notes"]


def test_no_fuzzy_and_fuzzy_anchor_min(make_settings) -> None:
    cat = entry("catalogo", desc="catalogo categoria", body="x")
    prompt = "catalogue category listing"
    assert variants.recall(prompt, [ListFile([cat])], make_settings(), REFERENCE).chosen
    assert not variants.recall(
        prompt, [ListFile([cat])], make_settings(AGD_RECALL_NO_FUZZY="1"), REFERENCE
    ).chosen
    assert not variants.recall(
        prompt,
        [ListFile([cat])],
        make_settings(AGD_RECALL_FUZZY_ANCHOR_MIN="3"),
        REFERENCE,
    ).chosen


def test_token_budget_keeps_only_the_first_block(make_settings) -> None:
    a = entry("deploy-a", desc="deploy release script vps", body="a " * 300)
    b = entry("deploy-b", desc="deploy release script vps", body="b " * 300)
    s = make_settings(AGD_RECALL_TOKEN_BUDGET="50", AGD_RECALL_MIN_SCORE_RATIO="0")
    assert len(recall(PROMPT, [ListFile([a, b])], s).chosen) == 1


def test_exact_budget_measures_the_injected_text(make_settings) -> None:
    # the reference measured a shorter rendering than it injected; ours measures what goes in
    a = entry(
        "deploy-a", desc="deploy release script vps", body="alpha " * 20, updated="2026-01-01"
    )
    b = entry("deploy-b", desc="deploy release script vps", body="beta " * 20, updated="2025-01-01")
    sizes = [len(e.to_agd()) + 1 for e in (a, b)]
    budget_tokens = (sum(sizes) - 5) // 4
    s = make_settings(AGD_RECALL_TOKEN_BUDGET=str(budget_tokens), AGD_RECALL_MIN_SCORE_RATIO="0")
    assert len(recall(PROMPT, [ListFile([a, b])], s).chosen) == 1


def test_langs_and_stopwords_file(make_settings, tmp_path) -> None:
    it = "ciao come stai oggi"
    assert (
        recall(it, files(), make_settings(AGD_RECALL_LANGS="it")).skipped == policy.BELOW_MIN_WORDS
    )
    sw = tmp_path / "sw.txt"
    sw.write_text("deploy\nrelease\nscript\nvps\n", encoding="utf-8")
    s = make_settings(AGD_RECALL_STOPWORDS_FILE=str(sw))
    assert recall("deploy release script vps", files(), s).skipped == policy.BELOW_MIN_WORDS


def test_headings_are_never_injected(make_settings) -> None:
    heading = entry("h-project", kind="h2", body="Project")
    r = recall("project project project notes", [ListFile([heading, DEPLOY])], make_settings())
    assert all(c.entry.kind != "h2" for c in r.chosen)


def test_synonyms_file_bridges_words(make_settings, memory_file, tmp_path) -> None:
    mf = memory_file(
        [block("cassa-setup", "POS till setup at the counter", "Zebra reader on USB.")]
    )
    prompt = "how is the checkout register configured"
    assert recall(prompt, [mf], make_settings()).chosen == []
    (tmp_path / ".agd-synonyms").write_text("till, register, checkout\n", encoding="utf-8")
    assert [c.entry.id for c in recall(prompt, [mf], make_settings()).chosen] == ["cassa-setup"]


def test_builtin_concepts_cross_languages(make_settings) -> None:
    f = [
        ListFile(
            [
                entry(
                    "fatture-numerazione",
                    desc="numerazione delle fatture",
                    body="progressivo annuo",
                )
            ]
        )
    ]
    assert [
        c.entry.id for c in recall("how are invoices numbered?", f, make_settings()).chosen
    ] == ["fatture-numerazione"]
    assert variants.recall("how are invoices numbered?", f, make_settings(), REFERENCE).chosen == []


def test_short_gate_lets_an_id_word_through(make_settings) -> None:
    assert [c.entry.id for c in recall("backup restic", files(), make_settings()).chosen] == [
        "backup-restic"
    ]
    assert (
        variants.recall("backup restic", files(), make_settings(), REFERENCE).skipped
        == policy.BELOW_MIN_WORDS
    )


def test_technical_tokens_match(make_settings) -> None:
    f = [ListFile([entry("storage-s3", desc="uploads go to s3 bucket", body="eu-west-1")])]
    assert [
        c.entry.id for c in recall("where do uploads to s3 land", f, make_settings()).chosen
    ] == ["storage-s3"]


def test_a_broken_file_does_not_silence_the_others(make_settings) -> None:
    class Broken(ListFile):
        def entries(self):
            raise OSError("unreadable")

    assert [
        c.entry.id for c in recall(PROMPT, [Broken([]), ListFile([DEPLOY])], make_settings()).chosen
    ] == ["deploy-vps"]


def test_default_is_not_reference() -> None:
    assert DEFAULT and not REFERENCE


def test_other_languages_function_words_do_not_eat_english_words(make_settings) -> None:
    from agd_memory.recall.analyzer import Analyzer

    s = make_settings()
    an = Analyzer()
    words = front.prompt_words("where is the comment about the bin folder", an, s)
    assert an.normalize("comment") in words and "bin" in words
    it = front.prompt_words("come si fa il deploy della nuova versione", an, s)
    assert "come" not in it and "della" not in it


def test_zero_budget_injects_nothing(make_settings) -> None:
    # the reference always kept the first block; a budget of 0 now means "inject nothing"
    s = make_settings(AGD_RECALL_TOKEN_BUDGET="0")
    assert recall(PROMPT, files(), s).skipped == policy.BUDGET


def test_recall_spawns_no_process(make_settings, memory_file, monkeypatch) -> None:
    import subprocess

    def refuse(*args, **kwargs):
        raise AssertionError("recall must not spawn a process")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    monkeypatch.setattr("os.system", refuse)
    mf = memory_file([block("deploy-vps", "deploy on the vps", "Run scripts/deploy.sh.")])
    assert [c.entry.id for c in recall(PROMPT, [mf], make_settings()).chosen] == ["deploy-vps"]


def test_feature_specs() -> None:
    import pytest

    from agd_memory.recall.eval import features

    assert features.parse("reference") == REFERENCE
    assert features.parse("default") == DEFAULT
    assert features.parse("-stem") == DEFAULT - {"stem"}
    assert features.parse("-stem,-cognates,+stem") == DEFAULT - {"cognates"}
    assert features.parse("tokens,bm25") == {"tokens", "bm25"}
    with pytest.raises(ValueError, match="unknown recall feature"):
        features.parse("-nope")
