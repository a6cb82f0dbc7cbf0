"""Synonym groups: file format, group merging, and the built-in list's hygiene."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from agd_memory.recall import lexicon
from agd_memory.recall.analyzer import Analyzer
from agd_memory.recall.eval import variants
from agd_memory.recall.eval.features import DEFAULT
from agd_memory.recall.text import stopwords


def test_read_groups_skips_comments_blanks_and_single_words(tmp_path: Path) -> None:
    f = tmp_path / "syn"
    f.write_text("# comment\n\ntill, register , checkout\nlonely\n", encoding="utf-8")
    assert lexicon.read_groups(f) == [["till", "register", "checkout"]]


def test_missing_file_has_no_groups(tmp_path: Path) -> None:
    assert lexicon.read_groups(tmp_path / "none") == []


def test_build_map_joins_a_line_to_an_existing_group() -> None:
    mapping = lexicon.build_map([["a1", "b1"], ["c1", "b1", "d1"]], lambda w: [w])
    assert mapping["a1"] == mapping["b1"] == mapping["c1"] == mapping["d1"] == "~a1"


def test_build_map_ignores_phrases() -> None:
    mapping = lexicon.build_map([["credit note", "nota", "gutschrift"]], lambda w: w.split())
    assert "credit" not in mapping and mapping["nota"] == mapping["gutschrift"]


def test_project_file_extends_builtin_groups(tmp_path: Path) -> None:
    f = tmp_path / "syn"
    f.write_text("fattura, parcella\n", encoding="utf-8")
    an = Analyzer(f)
    assert an.normalize("parcella") == an.normalize("invoice") == an.normalize("fattura")


def test_builtin_words_belong_to_one_group_only() -> None:
    counts = Counter(w for g in lexicon.builtin_groups() for w in set(g))
    assert [w for w, n in counts.items() if n > 1] == []


def test_builtin_groups_are_not_stopwords() -> None:
    # a concept word that is also a stopword would never reach the matcher
    stop = stopwords(("en", "it", "es", "fr", "de", "pt"), None)
    clash = sorted({w for g in lexicon.builtin_groups() for w in g} & stop)
    assert len(clash) <= 6, clash


def test_an_iso_date_reads_as_its_month_in_every_language() -> None:
    analyzer = Analyzer()
    block = analyzer.tokens("post-mortem: sync outage on 2026-02-18; export --mese 2026-04")
    for month in ("febbraio", "February", "Februar", "aprile", "avril"):
        assert analyzer.tokens(month)[0] in block, month
    assert analyzer.tokens("marzo")[0] not in block
    # not a date: a version, a ticket, a phone number
    assert analyzer.tokens("v2026-02 KES-2026 0422-1234") == variants.VariantAnalyzer(DEFAULT - {"dates"}).tokens(
        "v2026-02 KES-2026 0422-1234"
    )


def test_an_inflection_the_lists_lack_finds_its_concept_by_cognate_key() -> None:
    an = Analyzer()
    deploy = an.normalize("despliegue")
    assert an.normalize("despliego") != deploy  # the word lists have no first person
    assert an.concept_by_key(an.normalize("despliego")) == deploy
    # a cognate key alone is not enough: special shares only "speci" with specifica
    assert an.concept_by_key(an.normalize("special")) is None
    assert an.concept_by_key("xyzzyplugh") is None


def test_concept_keys_reach_a_block_only_for_words_the_memory_lacks(
    memory_file, make_settings
) -> None:
    from agd_memory.recall import recall

    mf = memory_file(
        [
            '@x-project desc="despliegue con GitHub Actions y rsync a la VM" [#despliegue-ci]\n'
            "~~~\nEl workflow deploy.yml copia los DAG a la VM con rsync.\n~~~\n",
            '@x-project desc="cuota de molturación por kilo" [#cuota]\n'
            "~~~\nLa cuota se descuenta de la liquidación de cada socio.\n~~~\n",
        ]
    )
    prompt = "cómo despliego el workflow en la máquina virtual"
    assert [c.entry.id for c in recall(prompt, [mf], make_settings()).chosen] == ["despliegue-ci"]
    off = variants.recall(prompt, [mf], make_settings(), DEFAULT - {"concept-keys"})
    assert off.chosen == []  # "despliego" alone is a word no block has


def test_a_word_sharing_four_letters_with_a_word_of_another_language_keeps_its_meaning() -> None:
    # issue 26: `cargo` (Rust's build tool) reached the upload concept through the stem
    # `carg` of Spanish `carga`, and every prompt about cargo matched the upload entries
    an = Analyzer()
    for word, other in [
        ("cargo", "upload"),  # es carga
        ("paste", "folder"),  # pt pasta
        ("dates", "file"),  # de Datei
        ("rolling", "role"),  # de Rolle
        ("apple", "app"),  # fr appli
        ("apply", "app"),  # fr appli (no longer listed: its stem is English apply's)
        ("policies", "font"),  # fr polices (no longer listed: English police, policy)
    ]:
        assert an.normalize(word) != an.normalize(other), word
    assert an.normalize("carga") == an.normalize("cargar") == an.normalize("upload")  # listed
    # a short stem two listed forms share is an inflection the lists vouch for
    for word, listed in [
        ("merging", "merge"),
        ("styling", "style"),
        ("cached", "cache"),
        ("nuevas", "nuevo"),
        ("falla", "fallo"),
    ]:
        assert an.normalize(word) == an.normalize(listed), word
    # inflections that met their concept only by such a coincidence are in the lists
    for word, listed in [
        ("spaces", "space"),
        ("siti", "sito"),
        ("notti", "notte"),
        ("tassa", "tax"),
    ]:
        assert an.normalize(word) == an.normalize(listed), word


def test_a_word_the_lists_build_on_is_not_their_concept_by_cognate_key() -> None:
    # issue 26: English `actual` took the update concept through Spanish `actualizar`
    an = Analyzer()
    for word in ("actual", "actually", "public", "programma", "ordinamento"):
        assert an.concept_by_key(an.normalize(word)) is None, word
    # inflections of a listed word still find it
    for word, listed in [
        ("aggiorna", "aggiornare"),
        ("aggiungi", "aggiungere"),
        ("rinomina", "rinominare"),
        ("scarica", "scaricare"),
        ("uploader", "upload"),
    ]:
        assert an.concept_by_key(an.normalize(word)) == an.normalize(listed), word


def test_a_prompt_about_cargo_or_the_actual_start_does_not_recall_uploads_or_updates(
    memory_file, make_settings
) -> None:
    from agd_memory.recall import recall

    mf = memory_file(
        [
            '@x-project desc="photo uploads to B2 retry with backoff" [#uploads]\n'
            "~~~\nLarge uploads are split in parts; a failed part is retried three times.\n~~~\n",
            '@x-project desc="the updater checks for a new version once a day" [#updates]\n'
            "~~~\nUpdates are downloaded in the background and applied at the next start.\n~~~\n",
        ]
    )
    settings = make_settings()
    for prompt in ("what is cargo?", "what is the actual start time?"):
        assert recall(prompt, [mf], settings).chosen == [], prompt
    # the words they were taken for still find their entries, in either language
    for prompt, expect in [
        ("cargar fotos a B2", "uploads"),
        ("aggiorna la versione", "updates"),
    ]:
        assert [c.entry.id for c in recall(prompt, [mf], settings).chosen][:1] == [expect], prompt
