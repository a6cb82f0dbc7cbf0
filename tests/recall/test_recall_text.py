"""Tokenizer and stopwords: the reference rules, then the improved tokenizer."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from agd_memory.recall.text import (
    BUILTIN_LANGS,
    builtin_stopwords,
    fold,
    improved_tokens,
    reference_tokens,
    stopwords,
)


def test_reference_lowercases_and_splits_on_punctuation() -> None:
    assert reference_tokens("Hello, World! foo-bar", 1) == ["hello", "world", "foo", "bar"]


def test_reference_splits_letters_from_digits_and_underscores() -> None:
    assert reference_tokens("foo_bar2", 1) == ["foo", "bar", "2"]


def test_reference_keeps_italian_accents() -> None:
    assert reference_tokens("perché città", 3) == ["perché", "città"]


def test_reference_drops_short_tokens_including_v2_and_numbers() -> None:
    # the reference's weakness: technical names vanish
    assert reference_tokens("deploy v2 to s3 on 42", 3) == ["deploy"]


def test_reference_tokenizes_other_scripts() -> None:
    assert reference_tokens("Привет κόσμε Straße niño", 3) == ["привет", "κόσμε", "straße", "niño"]


def test_improved_splits_identifiers_and_keeps_the_whole() -> None:
    assert improved_tokens("InspectionCard", 3) == ["inspectioncard", "inspection", "card"]
    assert improved_tokens("snake_case_name", 3) == ["snake", "case", "name"]
    assert improved_tokens("getByRole", 3) == ["getbyrole", "get", "role"]
    assert improved_tokens("HTTPServer", 3) == ["httpserver", "http", "server"]


def test_improved_keeps_short_technical_tokens_and_numbers() -> None:
    assert improved_tokens("v2 s3 k8s 404 x 7", 3) == ["v2", "s3", "k8s", "404"]


def test_improved_folds_accents() -> None:
    assert improved_tokens("Perché Straße", 3) == ["perche", "strasse"]


def test_improved_drops_url_schemes_but_keeps_the_rest_of_the_link() -> None:
    # a block that links a status page is not about HTTP status codes
    tokens = improved_tokens("Status: https://status.kestrel.io and git+ssh://host/x", 3)
    assert "https" not in tokens and "ssh" not in tokens
    assert {"status", "kestrel", "host"} <= set(tokens)
    assert improved_tokens("the HTTP status", 3) == ["the", "http", "status"]


def test_improved_splits_cjk_into_bigrams() -> None:
    assert improved_tokens("部署方案", 3) == ["部署", "署方", "方案"]
    assert improved_tokens("し", 3) == ["し"]
    # a CJK word on the prompt side meets the same bigrams in the block
    assert set(improved_tokens("部署", 3)) <= set(improved_tokens("部署方案の説明", 3))


def test_default_stopwords_are_english_only() -> None:
    words = stopwords(("en",), None)
    assert "the" in words
    assert "che" not in words


def test_italian_list_and_altro_is_not_a_stopword() -> None:
    words = stopwords(("it", "en"), None)
    for w in ("ciao", "come", "stai", "oggi", "che"):
        assert w in words
    assert "altro" not in words


def test_unknown_language_contributes_nothing() -> None:
    assert stopwords(("xx",), None) == frozenset()


def test_every_builtin_language_has_a_list() -> None:
    for lang in BUILTIN_LANGS:
        assert len(builtin_stopwords(lang)) > 30, lang


def test_request_verbs_are_separate_from_function_words() -> None:
    assert "please" not in builtin_stopwords("en")
    assert "please" in builtin_stopwords("en", request_verbs=True)


def test_extra_stopwords_file_skips_comments_and_blanks(tmp_path: Path) -> None:
    f = tmp_path / "sw.txt"
    f.write_text("# comment\n\n  Foo \nbar\n", encoding="utf-8")
    words = stopwords((), str(f))
    assert words == frozenset({"foo", "bar"})


def test_missing_stopwords_file_is_ignored(tmp_path: Path) -> None:
    assert stopwords((), str(tmp_path / "missing.txt")) == frozenset()


@given(st.text())
def test_improved_tokens_are_folded_and_nonempty(text: str) -> None:
    for tok in improved_tokens(text, 3):
        assert tok
        assert tok == fold(tok)


@given(st.text())
def test_reference_tokens_respect_min_length(text: str) -> None:
    assert all(len(t) >= 3 for t in reference_tokens(text, 3))


def test_builtin_lists_are_read_from_the_disk_cache_until_a_list_changes(
    tmp_path: Path, monkeypatch
) -> None:
    import shutil

    from agd_memory.recall import text

    lists = tmp_path / "lists"
    shutil.copytree(text.STOPWORDS_DIR, lists)
    monkeypatch.setattr(text, "STOPWORDS_DIR", lists)
    cache = tmp_path / "cache"

    def fresh_process_lists() -> frozenset[str]:
        monkeypatch.setattr(text, "_LISTS", None)
        text.load_builtin_lists(cache)
        return builtin_stopwords("it", frame=True, folded=True)

    from_files = fresh_process_lists()  # read from the files, then written to the cache
    assert "perche" in from_files and "perché" in from_files

    def unread(path: Path) -> frozenset[str]:
        raise AssertionError(f"{path} read although the cache holds it")

    with monkeypatch.context() as m:
        m.setattr(text, "read_word_file", unread)
        assert fresh_process_lists() == from_files

    with (lists / "frame-it.txt").open("a", encoding="utf-8") as fh:
        fh.write("ciaone\n")
    assert "ciaone" in fresh_process_lists()  # an edited list is read again
