"""Search keys (`keys=` written with a block) in recall and ranked search."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from recall_helpers import block, write_memory

from agd_memory.recall import front, recall, search
from agd_memory.recall.eval import variants
from agd_memory.recall.eval.features import DEFAULT
from agd_memory.recall.scoring import Prompt, score_all_bm25

ROUNDING_BODY = "L'IVA si calcola sul totale imponibile per aliquota, non riga per riga."
ROUNDING = block(
    "bug-iva",
    "IVA arrotondata riga per riga, corretto",
    ROUNDING_BODY,
    keys="vat rounding, cent off, tax total, invoice total, centesimi",
)
DEPLOY = block(
    "deploy",
    "deploy con lo script di rilascio",
    "scripts/deploy.sh dopo make check; riavvia gunicorn.",
)
PROMPT = "a customer says the tax total on an invoice is a cent off"


def test_keys_find_a_block_whose_desc_and_body_share_no_word(memory_file, make_settings) -> None:
    mf = memory_file([ROUNDING, DEPLOY])
    chosen = recall(PROMPT, [mf], make_settings()).chosen
    assert [s.entry.id for s in chosen] == ["bug-iva"]
    without = variants.recall(PROMPT, [mf], make_settings(), DEFAULT - {"keys"})
    assert without.chosen == []


def test_keys_are_not_injected(memory_file, make_settings) -> None:
    result = recall(PROMPT, [memory_file([ROUNDING])], make_settings())
    text = result.render()
    assert "#bug-iva" in text and "keys=" not in text and "cent off" not in text
    assert 'desc="IVA arrotondata riga per riga, corretto"' in text


def anchors(mf, settings, prompt: str) -> frozenset[str]:
    """The prompt words that anchor #bug-iva (found in its id, desc, or two of its keys)."""
    files = front.select_files([mf], settings)
    analyzer = front.analyzer_for(files, settings)
    words = front.prompt_words(prompt, analyzer, settings)
    index = front.build_index(files, settings, analyzer)
    matches = score_all_bm25(index, Prompt.build(words, analyzer, fuzzy=True))
    return next(m.anchor_exact for m in matches if m.doc.id == "bug-iva")


def test_two_key_words_anchor_a_block_one_does_not(memory_file, make_settings) -> None:
    mf, settings = memory_file([ROUNDING, DEPLOY]), make_settings()
    assert len(anchors(mf, settings, "the tax total looks odd")) == 2  # tax (a concept), total
    # one key word is the coincidence keys must not turn into noise
    assert anchors(mf, settings, "what is the tax on restaurant meals") == set()


def test_a_key_of_several_words_counts_only_whole(memory_file, make_settings) -> None:
    # "invoice" is half of "invoice total", "cent" half of "cent off": no key is matched
    mf, settings = memory_file([ROUNDING, DEPLOY]), make_settings()
    assert anchors(mf, settings, "the invoice was a cent wrong") == set()
    assert anchors(mf, settings, "the invoice total was a cent off") != set()


def test_a_keyed_block_must_explain_more_of_the_prompt(memory_file, make_settings) -> None:
    # two key words hit (an unkeyed block would be injected at this share), but most of
    # the prompt is about something the memory does not know
    mf = memory_file([ROUNDING, DEPLOY])
    prompt = "the tax total in a sonnet for the retirement party at the seaside tomorrow"
    assert recall(prompt, [mf], make_settings()).chosen == []
    assert recall("the tax total in a sonnet", [mf], make_settings()).chosen


def test_keys_do_not_raise_the_bar_for_a_prompt_that_names_none_of_them(
    memory_file, make_settings
) -> None:
    # issue 26: an entry that got keys (written or learned from use) needed a larger share
    # of every prompt, so a prompt it answered by the words of its desc and body was lost
    prompt = (
        "imponibile per aliquota o riga per riga? il cliente di Torino ha mandato una mail"
        " arrabbiata stamattina"
    )
    plain = block("bug-iva", "IVA arrotondata riga per riga, corretto", ROUNDING_BODY)
    for name, blocks in [("plain.agd", [plain, DEPLOY]), ("keyed.agd", [ROUNDING, DEPLOY])]:
        mf = memory_file(blocks, name=name)
        assert [s.entry.id for s in recall(prompt, [mf], make_settings()).chosen] == ["bug-iva"]


def test_ranked_search_matches_keys(memory_file, make_settings) -> None:
    mf = memory_file([ROUNDING, DEPLOY])
    hits = search.search("cent off", [mf], make_settings())
    assert [h.entry.id for h in hits][:1] == ["bug-iva"]


def test_ranked_search_counts_each_key_word(memory_file, make_settings) -> None:
    # a search query is terse: "rounding" alone finds the block keyed "vat rounding",
    # which recall (whole keys only) does not credit
    mf = memory_file([ROUNDING, DEPLOY])
    assert [h.entry.id for h in search.search("rounding", [mf], make_settings())] == ["bug-iva"]
    assert recall("rounding errors in the yearly report", [mf], make_settings()).chosen == []


PHOTOS = block(
    "photo-size",
    "photos at 1600 px, JPEG 0.7, before upload",
    "react-native-image-resizer runs before the upload queue.",
    keys="ridimensionare foto, compressione immagini, resize photo",
)


def test_a_key_word_is_met_by_an_inflected_prompt_word(memory_file, make_settings) -> None:
    # keys are written in dictionary form; the prompt conjugates the verb
    mf, settings = memory_file([PHOTOS, DEPLOY]), make_settings()
    prompt = "a che risoluzione ridimensioniamo le foto prima di caricarle?"
    assert [s.entry.id for s in recall(prompt, [mf], settings).chosen] == ["photo-size"]
    plain = variants.recall(prompt, [mf], settings, DEFAULT - {"key-cognates", "concept-keys"})
    assert plain.chosen == []
    # still whole keys only: a cognate of one word of a phrase is not enough
    assert recall("ridimensioniamo la finestra del terminale", [mf], settings).chosen == []


DISPENSING = block(
    "pharmacy-stock",
    "pharmacy stock per clinic by lot",
    "Dispensing picks lots first-expired-first-out.",
    keys="dispensing, dispensazione",
)
SCORE_IN_A_PROCESS = """
import sys
from agd_memory.recall import front
from agd_memory.recall.scoring import Prompt, score_all_bm25
from agd_memory.settings import Settings
from agd_memory.store.memoryfile import MemoryFile

settings = Settings.load({"CLAUDE_PLUGIN_DATA": sys.argv[2], "HOME": sys.argv[2]})
files = front.select_files([MemoryFile(sys.argv[1], layer="project")], settings)
analyzer = front.analyzer_for(files, settings)
words = front.prompt_words(sys.argv[3], analyzer, settings)
index = front.build_index(files, settings, analyzer)
for m in score_all_bm25(index, Prompt.build(words, analyzer, fuzzy=True)):
    print(m.doc.id, round(m.score, 9), sorted(m.anchor_exact))
"""


def test_a_key_word_akin_to_two_prompt_words_scores_alike_in_every_process(tmp_path) -> None:
    # `dispensazione` is a cognate of both `dispense` and `dispenseservice`: which prompt
    # word it stood for followed the process's hash seed, so the same prompt on the same
    # memory scored (and could inject) differently from one hook process to the next.
    path = write_memory(tmp_path / "memory.agd", [DISPENSING, DEPLOY])
    prompt = "ho finito il refactoring di DispenseService, dimmi che funziona"
    src = str(Path(__file__).resolve().parents[2] / "src")
    seen = set()
    for seed in range(1, 9):
        data = str(tmp_path / f"data{seed}")
        out = subprocess.run(
            [sys.executable, "-c", SCORE_IN_A_PROCESS, str(path), data, prompt],
            env={**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": src},
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
        seen.add(out)
    assert len(seen) == 1, seen
