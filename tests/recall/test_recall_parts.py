"""Long prompts: a block that answers one part of a multi-part question, and the words of
a question's frame that name no topic (issue 26)."""

from __future__ import annotations

from recall_helpers import FILLER, entry, ids

from agd_memory.recall import engine, front, policy
from agd_memory.recall.eval.features import DEFAULT

PROJECT = [
    entry(
        "bug-etag",
        desc="multipart ETag bug: B2 returns ETags without quotes",
        body="Every multipart upload to Backblaze B2 failed with a checksum mismatch; the ETag"
        " was compared with its quotes. Fixed in 0.4.2 by trimming the quotes.",
    ),
    entry(
        "watcher-deadlock",
        desc="daemon deadlock: the watcher held the catalog lock across an await",
        body="quarryd stopped uploading after hours; the watcher kept the mutex across an"
        " await. The catalog now runs on its own thread.",
    ),
    entry(
        "workspace",
        desc="workspace: quarry-core library, quarry-cli binary, quarry-daemon",
        body="quarry-core holds scan, hash, catalog and remote; quarry files are shared.",
    ),
    entry("quarry-config", desc="quarry config file", body="quarry reads ~/.config/quarry."),
    entry("quarry-logs", desc="quarry log files", body="quarry logs go to the quarry file."),
    *FILLER,
]


def test_clauses_split_a_prompt_where_its_questions_meet() -> None:
    prompt = "we debugged the B2 bug - what was the error, which function, and what was the fix?"
    assert policy.clauses(prompt) == [
        "we debugged the B2 bug",
        "what was the error",
        "which function",
        "what was the fix",
    ]
    assert policy.clauses("one plain question about backups") == [
        "one plain question about backups"
    ]


def test_a_block_answering_one_part_of_a_long_prompt_is_recalled(make_settings) -> None:
    settings = make_settings()
    prompt = (
        "three things for the meeting: the website copy for the pricing page, the"
        " onboarding emails for new signups, and the Backblaze multipart checksum failures"
    )
    assert ids(prompt, PROJECT, settings)[:1] == ["bug-etag"]
    # judged on the whole prompt, the block explains too little of it
    assert "bug-etag" not in ids(prompt, PROJECT, settings, DEFAULT - {"parts"})


def test_a_part_matched_only_by_the_projects_common_words_does_not_count(
    make_settings, monkeypatch
) -> None:
    """`quarry` and `file` are in many blocks: a clause they share with a block does not
    single that block out."""
    settings = make_settings()
    prompt = (
        "three things for the launch post: a new intro paragraph, a screenshot of the"
        " website, and the quarry files"
    )
    assert ids(prompt, PROJECT, settings) == []
    monkeypatch.setattr(engine, "COMMON_DF_SHARE", 1.0)  # every word distinctive
    assert "quarry-logs" in ids(prompt, PROJECT, settings)


def test_the_parts_of_one_word_count_once() -> None:
    assert engine.whole_words(frozenset({"iphone", "phone", "~phon"})) == {"iphone"}
    assert engine.whole_words(frozenset({"lazylock", "lazy", "lock", "mutex"})) == {
        "lazylock",
        "mutex",
    }


def test_the_frame_of_a_question_about_the_past_names_no_topic(make_settings) -> None:
    settings = make_settings()
    # (`final fix` no longer shows it: the etag entry's `Fixed` is the fix concept since
    # the stemmer gives three-letter roots back, so `fix` weighs less in the prompt)
    prompt = "trace how the daemon deadlock evolved from the initial report to the final workaround"
    assert ids(prompt, PROJECT, settings)[:1] == ["watcher-deadlock"]
    assert ids(prompt, PROJECT, settings, DEFAULT - {"frame-words"}) == []
    words = front.Front(prompt, [], settings).words
    assert not {"trace", "evolv", "evolved", "initial", "final"} & set(words)
