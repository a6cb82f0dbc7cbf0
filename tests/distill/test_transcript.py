"""Transcript parsing, the gate and the bounded excerpt."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from distill_records import edit_session, result, say, tool, trivial_session, user, write_transcript
from hypothesis import given, settings
from hypothesis import strategies as st

from agd_memory.claude import transcript
from agd_memory.claude.transcript import Digest, Turn


def gate(d: Digest, edits: int = 1, tools: int = 4) -> transcript.Gate:
    return transcript.gate(d, min_edits=edits, min_tool_uses=tools)


def test_counts_tool_uses_edits_and_user_words(tmp_path: Path) -> None:
    path = write_transcript(tmp_path / "s.jsonl", edit_session())
    d = transcript.read(path)
    assert (d.tool_uses, d.edits) == (4, 2)
    assert d.user_words == len(edit_session()[0]["message"]["content"].split())
    assert d.end == path.stat().st_size
    roles = [t.role for t in d.turns]
    assert roles[0] == "user" and "tool" in roles and "result" in roles


def test_default_gate_is_any_edit_or_four_tool_uses(tmp_path: Path) -> None:
    trivial = transcript.read(write_transcript(tmp_path / "a.jsonl", trivial_session()))
    assert not gate(trivial).passed
    assert "trivial session" in gate(trivial).reason
    one_edit = transcript.read(
        write_transcript(tmp_path / "b.jsonl", [user("fix it"), tool("Edit", file_path="x")])
    )
    assert gate(one_edit).passed
    four_reads = [user("look around")] + [tool("Read", file_path=f"f{i}") for i in range(4)]
    assert gate(transcript.read(write_transcript(tmp_path / "c.jsonl", four_reads))).passed
    three_reads = four_reads[:-1]
    assert not gate(transcript.read(write_transcript(tmp_path / "d.jsonl", three_reads))).passed


def test_thresholds_are_configurable(tmp_path: Path) -> None:
    d = transcript.read(write_transcript(tmp_path / "a.jsonl", trivial_session()))
    assert gate(d, edits=5, tools=1).passed
    talk = transcript.read(
        write_transcript(tmp_path / "b.jsonl", [user("we always deploy on Fridays"), say("noted")])
    )
    assert gate(talk, edits=0, tools=99).passed
    assert not gate(talk).passed


def test_nothing_new_never_passes(tmp_path: Path) -> None:
    path = write_transcript(tmp_path / "a.jsonl", edit_session())
    d = transcript.read(path, path.stat().st_size)
    assert d.turns == [] and not gate(d, edits=0, tools=0).passed


def test_meta_sidechain_and_compact_summaries_are_not_the_session(tmp_path: Path) -> None:
    records = [
        user("<command-name>/clear</command-name>", isMeta=True),
        user(
            "This session is being continued from a previous conversation...", isCompactSummary=True
        ),
        {**tool("Edit", file_path="sub.py"), "isSidechain": True},
        {"type": "attachment", "attachment": {"type": "hook_success", "content": "x"}},
        {"type": "system", "subtype": "compact_boundary"},
        {"type": "summary", "summary": "old"},
        user("real words here"),
    ]
    d = transcript.read(write_transcript(tmp_path / "a.jsonl", records))
    assert d.edits == 0 and d.tool_uses == 0
    assert [t.text for t in d.turns] == ["real words here"]


def test_malformed_lines_are_skipped_and_an_incomplete_last_line_is_left(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    good = json.dumps(user("first"))
    partial = json.dumps(tool("Edit", file_path="x"))[:30]
    path.write_text(f"{good}\nnot json\n[1,2]\n\n{partial}", encoding="utf-8")
    d = transcript.read(path)
    assert d.bad_lines == 1
    assert d.end == len(f"{good}\nnot json\n[1,2]\n\n".encode())
    assert [t.text for t in d.turns] == ["first"]
    # Once the line is complete it is read from the stored offset.
    path.write_text(
        f"{good}\nnot json\n[1,2]\n\n{json.dumps(tool('Edit', file_path='x'))}\n", encoding="utf-8"
    )
    again = transcript.read(path, d.end)
    assert again.edits == 1 and again.turns[0].role == "tool"


def test_reading_from_an_offset_sees_only_the_new_part(tmp_path: Path) -> None:
    path = write_transcript(tmp_path / "a.jsonl", edit_session("Postgres"))
    first = transcript.read(path)
    write_transcript(
        path,
        [user("also: never run migrations on Fridays"), tool("Edit", file_path="deploy.sh")],
        append=True,
    )
    second = transcript.read(path, first.end)
    assert second.start == first.end
    assert [t.text for t in second.turns if t.role == "user"] == [
        "also: never run migrations on Fridays"
    ]
    assert second.edits == 1


def test_private_spans_never_reach_the_excerpt(tmp_path: Path) -> None:
    records = [
        user("Deploy with <private>the staging password hunter2</private> as usual."),
        say("Sure. <PRIVATE>internal note"),
    ]
    d = transcript.read(write_transcript(tmp_path / "a.jsonl", records))
    text = transcript.excerpt(d, 10_000)
    assert "hunter2" not in text and "internal note" not in text
    assert "Deploy with [private] as usual." in text


def test_tool_calls_are_summarised_and_results_clipped(tmp_path: Path) -> None:
    records = [
        tool("Bash", command="pytest -q\n  --lf", description="run tests"),
        result("x" * 5000),
    ]
    d = transcript.read(write_transcript(tmp_path / "a.jsonl", records))
    assert d.turns[0].text == "Bash command=pytest -q --lf description=run tests"
    assert len(d.turns[1].text) == transcript.TOOL_RESULT_CHARS


def test_excerpt_keeps_the_opening_and_the_end_within_budget() -> None:
    turns = [Turn("user", "TASK: migrate the queue")] + [
        Turn("assistant", f"step {i} " + "x" * 200) for i in range(200)
    ]
    turns.append(Turn("assistant", "CONCLUSION: done"))
    d = Digest(0, 0, turns)
    text = transcript.excerpt(d, 5000)
    assert len(text) <= 5000
    assert text.startswith("USER: TASK: migrate the queue")
    assert text.endswith("ASSISTANT: CONCLUSION: done")
    assert "turns omitted" in text


@pytest.mark.property
@settings(max_examples=60, deadline=None)
@given(
    texts=st.lists(st.text(min_size=1, max_size=300), max_size=80),
    budget=st.integers(min_value=200, max_value=20000),
)
def test_excerpt_never_exceeds_its_budget(texts: list[str], budget: int) -> None:
    d = Digest(0, 0, [Turn("assistant" if i % 2 else "user", t) for i, t in enumerate(texts)])
    out = transcript.excerpt(d, budget)
    assert len(out) <= budget
    if sum(len(t) + 12 for t in texts) < budget // 2:
        assert all(t in out for t in texts)


@pytest.mark.property
@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.binary(max_size=200),
            st.builds(lambda t: json.dumps(user(t)).encode(), st.text(max_size=50)),
        ),
        max_size=20,
    )
)
def test_any_bytes_parse_without_error_and_stop_at_a_line_end(
    tmp_path_factory, chunks: list[bytes]
) -> None:
    path = tmp_path_factory.mktemp("t") / "t.jsonl"
    data = b"\n".join(chunks)
    path.write_bytes(data)
    d = transcript.read(path)
    assert d.end == data.rfind(b"\n") + 1
    assert transcript.read(path, d.end).turns == []


# --- what Claude Code injects is not the user's ------------------------------------------

PROMPT = "Use Postgres for the job queue: create the jobs table."  # 10 words
REMINDER = (
    "<system-reminder>\nAttribution for git commits and pull requests you create from here on: "
    "end commit messages with Co-Authored-By: Claude <noreply@anthropic.com>.\ngitStatus: This "
    "is the git status at the start of the conversation. Current branch: main. Status: clean. "
    "Recent commits: 1a2b3c4 first commit.\n</system-reminder>"
)


def claude_code_session() -> list[dict]:
    """The records a Claude Code 2.1.332 `-p` session writes around one typed prompt (shapes
    from a real transcript, texts shortened)."""
    blob = {
        "type": "api-request-blob",
        "sessionId": "s-1",
        "hash": "d389a4de",
        "message": {
            "role": "user",
            "content": [{"type": "text", "text": REMINDER}, {"type": "text", "text": PROMPT}],
        },
    }
    hook_context = {
        "type": "attachment",
        "attachment": {
            "type": "hook_additional_context",
            "content": ["agd memory: #db-choice Database is Postgres for the job queue"],
        },
    }
    return [
        {"type": "queue-operation", "operation": "enqueue", "content": PROMPT},
        user(PROMPT, promptId="p-1", promptSource="sdk"),
        hook_context,
        {"type": "last-prompt", "lastPrompt": PROMPT},
        blob,
        tool("Write", file_path="/p/migrations.sql", content="CREATE TABLE jobs (id bigserial);"),
        result("File created successfully at: /p/migrations.sql"),
        tool(
            "Bash",
            command='git commit -m "jobs table\n\n🤖 Generated with [Claude Code](https://claude.com/claude-code)\n\nCo-Authored-By: Claude <noreply@anthropic.com>"',
        ),
        result(
            "[main 5d6e7f8] jobs table\n<system-reminder>The file was modified.</system-reminder>"
        ),
        say(
            "Created the jobs table.\n\n🤖 Generated with [Claude Code](https://claude.com/claude-code)"
        ),
    ]


def test_only_what_the_user_typed_counts_as_the_user(tmp_path: Path) -> None:
    d = transcript.read(write_transcript(tmp_path / "s.jsonl", claude_code_session()))
    assert d.user_words == 10
    assert [t.text for t in d.turns if t.role == "user"] == [PROMPT]
    text = transcript.excerpt(d, 10_000)
    for injected in (
        "system-reminder",
        "gitStatus",
        "Generated with",
        "Co-Authored-By",
        "agd memory:",
    ):
        assert injected not in text, injected
    assert "git commit -m" in text and "Created the jobs table." in text
    assert (d.tool_uses, d.edits) == (2, 1)


def test_reminders_hook_output_and_command_wrappers_are_dropped_from_user_text(
    tmp_path: Path,
) -> None:
    records = [
        _user_parts(REMINDER, "Fix the flaky login test."),
        user("<user-prompt-submit-hook>memory: #auth-flow uses JWT</user-prompt-submit-hook>"),
        user(
            "<command-name>/model</command-name>\n<command-message>model</command-message>\n"
            "<command-args>opus</command-args>"
        ),
        user("<local-command-stdout>Set model to opus</local-command-stdout>"),
        user("<bash-input>git status</bash-input>"),
        user("<bash-stdout>On branch main</bash-stdout><bash-stderr></bash-stderr>"),
        user("Caveat: The messages below were generated by the user", isMeta=True),
    ]
    d = transcript.read(write_transcript(tmp_path / "s.jsonl", records))
    assert [t.text for t in d.turns] == [
        "Fix the flaky login test.",
        "/model opus",
        "git status",
    ]
    assert d.user_words == 5 + 2 + 2


def _user_parts(*texts: str) -> dict:
    record = user("")
    record["message"]["content"] = [{"type": "text", "text": t} for t in texts]
    return record


def test_a_transcript_bigger_than_the_limit_is_read_from_its_newest_whole_line(
    tmp_path: Path,
) -> None:
    old = [user(f"old prompt number {n} " + "x" * 200) for n in range(50)]
    path = write_transcript(tmp_path / "s.jsonl", [*old, user("the newest prompt")])
    size = path.stat().st_size
    d = transcript.read(path, 0, limit=2_000)
    texts = [t.text for t in d.turns]
    assert texts[-1] == "the newest prompt" and len(texts) < 10
    assert d.skipped > 0 and d.start == d.skipped and d.end == size
    assert path.read_bytes()[d.start - 1 : d.start] == b"\n"  # it starts on a whole line
    whole = transcript.read(path)
    assert whole.skipped == 0 and len(whole.turns) == 51


def test_a_deeply_nested_line_is_a_bad_line_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("[" * 100_000 + "\n" + json.dumps(user("still read")) + "\n")
    d = transcript.read(path)
    assert d.bad_lines == 1 and [t.text for t in d.turns] == ["still read"]


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    os.mkfifo(path)
    with pytest.raises(OSError, match="not a regular file"):
        transcript.read(path)
