"""The model's answer is held to its schema's limits when it is read, whatever the model
(or the scripted fake `claude` on PATH) sends: supersedes, counts, types, lengths,
nesting and text that is not valid Unicode."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from distill_records import edit_session, write_transcript

from agd_memory import paths, store
from agd_memory.distill import pipeline, proposals, schema
from agd_memory.distill.state import Pending
from agd_memory.errors import UserError
from agd_memory.store.rules import MAX_KEYS

REPO = Path(__file__).resolve().parents[2]
OLD = [f"fact-{i}" for i in range(13)]


def proposal(**fields: object) -> dict:
    return {
        "kind": "x-project",
        "id": "queue-db",
        "desc": "Queue on Postgres",
        "body": "SKIP LOCKED.",
        **fields,
    }


@pytest.fixture
def project(env) -> tuple[Path, store.MemoryFile]:
    """A project whose memory holds 13 current entries."""
    cwd = env.project("app")
    mf = store.MemoryFile(env.memory_file(cwd), layer="project", settings=env.settings())
    for n, block_id in enumerate(OLD):
        mf.save("x-project", block_id, f"Fact number {n} about topic{n}.", desc=f"topic{n} fact")
    return cwd, mf


def distil(env, cwd: Path, *, dry_run: bool = False) -> tuple[pipeline.Result, list[str]]:
    said: list[str] = []
    t = write_transcript(env.root / "t" / "s.jsonl", edit_session())
    item = Pending(str(t), "s-1", str(cwd), "manual", 0.0)
    layers = paths.resolve(env.settings(), cwd=str(cwd))
    result = pipeline.distil(env.settings(), item, layers, log=said.append, dry_run=dry_run)
    return result, said


def statuses(mf: store.MemoryFile) -> dict[str, str | None]:
    return {e.id: e.status for e in mf.entries() if e.is_memory}


def test_a_supersedes_list_past_its_limit_supersedes_nothing(env, fake_claude, project) -> None:
    cwd, mf = project
    fake_claude.script({"proposals": [proposal(supersedes=OLD)]})
    result, said = distil(env, cwd)
    assert result.outcome == "saved"
    after = statuses(mf)
    assert [i for i in OLD if after[i] == "superseded"] == []
    assert "supersedes" not in {e.id: e for e in mf.entries()}["queue-db"].attrs
    assert any("supersedes of 13 ids dropped (at most 3)" in line for line in said)


def test_only_entries_the_model_was_shown_can_be_superseded(
    env, fake_claude, project, monkeypatch
) -> None:
    cwd, mf = project
    monkeypatch.setenv("AGD_TOC_TOKEN_BUDGET", "200")  # the TOC lists a few, then "+N more"
    fake_claude.script({"proposals": [proposal(supersedes=["fact-0", "fact-12"])]})
    result, said = distil(env, cwd)
    toc = fake_claude.calls()[0]["stdin"].split("<memory-toc>")[1].split("</memory-toc>")[0]
    shown = set(pipeline.TOC_ENTRY.findall(toc))
    assert "more entries not listed" in toc and 0 < len(shown & set(OLD)) < len(OLD)
    after = statuses(mf)
    for block_id in ("fact-0", "fact-12"):
        assert (after[block_id] == "superseded") == (block_id in shown), block_id
    unseen = {"fact-0", "fact-12"} - shown
    assert unseen, "the test needs one id the model was not shown"
    assert any("not among the entries the model was shown" in line for line in said)


def test_an_answer_past_its_limits_is_cut_to_them_with_a_log_line(
    env, fake_claude, project
) -> None:
    cwd, mf = project
    many = [
        proposal(id=f"new-{n}", desc=f"subject{n} rule", body=f"Rule about subject{n}.")
        for n in range(7)
    ]
    fake_claude.script({"proposals": many})
    result, said = distil(env, cwd)
    assert sorted(result.report.saved_ids) == ["new-0", "new-1", "new-2"]
    assert any("holds 7 proposals (at most 3)" in line for line in said)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (proposal(id="a" * 65), "65 characters"),
        (proposal(id="a" * 100_000), "100000 characters"),
        (proposal(body=["not", "text"]), "`body` is a list"),
        (proposal(kind={"x": 1}), "`kind` is a dict"),
        (proposal(desc=7), "`desc` is a int"),
    ],
)
def test_fields_of_the_wrong_type_or_size_refuse_the_proposal(raw: dict, message: str) -> None:
    with pytest.raises(UserError, match=message):
        proposals.validate(raw)


def test_limits_on_keys_and_supersedes_hold_on_read() -> None:
    p = proposals.validate(
        proposal(
            keys=[f"key{n}" for n in range(MAX_KEYS + 16)],
            supersedes=[f"old-{n}" for n in range(4)],
        )
    )
    assert len(p.keys) == MAX_KEYS and p.supersedes == ()
    assert any(f"keys past the first {MAX_KEYS} dropped" in n for n in p.notes)
    assert proposals.validate(proposal(supersedes=["a", "#b", "a"])).supersedes == ("a", "b")
    assert proposals.validate(proposal(supersedes=[{"id": "a"}])).supersedes == ()


def test_a_lone_surrogate_becomes_a_replacement_character() -> None:
    p = proposals.validate(
        json.loads(
            '{"kind": "x-project", "id": "s", "desc": "bad \\ud800 desc", "body": "x\\udfff y", "keys": ["k\\ud800"]}'
        )
    )
    for value in (p.desc, p.body, *p.keys):
        value.encode("utf-8")
    assert p.desc == "bad \ufffd desc" and p.body == "x\ufffd y"


def test_a_lone_surrogate_in_the_answer_is_saved_and_printable(env, fake_claude, project) -> None:
    cwd, mf = project
    fake_claude.script(
        {
            "stdout": json.dumps(
                {
                    "type": "result",
                    "structured_output": {"proposals": [proposal(desc="lone \ud800 here")]},
                }
            )
        }
    )
    result, _ = distil(env, cwd)
    assert result.outcome == "saved"
    assert {e.id: e for e in mf.entries()}["queue-db"].desc == "lone \ufffd here"
    json.dumps(result.raw_proposals, ensure_ascii=False).encode("utf-8")


def test_a_deeply_nested_answer_is_a_failed_run_not_a_crash(env, fake_claude, project) -> None:
    cwd, mf = project
    before = mf.path.read_bytes()
    fake_claude.script({"stdout": "[" * 100_000})
    result, _ = distil(env, cwd)
    assert result.outcome == "failed"
    nested = {"type": "result", "result": "[" * 100_000, "structured_output": None}
    fake_claude.script({"stdout": json.dumps(nested)})
    result, _ = distil(env, cwd)
    assert result.outcome == "failed" and "no structured `proposals` list" in result.detail
    assert mf.path.read_bytes() == before


def test_plain_cuts_deep_nesting_and_mends_text() -> None:
    deep: object = "leaf"
    for _ in range(50):
        deep = [deep]
    out = schema.plain({"a\ud800": deep})
    text = json.dumps(out, ensure_ascii=False)
    text.encode("utf-8")
    assert "…" in text and "a\ufffd" in text


@pytest.mark.parametrize("as_json", [False, True])
def test_the_foreground_distill_prints_a_hostile_answer(env, fake_claude, project, as_json) -> None:
    cwd, _ = project
    fake_claude.script(
        {
            "stdout": json.dumps(
                {
                    "type": "result",
                    "structured_output": {
                        "proposals": [
                            proposal(
                                desc="lone \ud800",
                                body="b\udfff",
                                supersedes=OLD,
                                nested=[[[[[[["x"]]]]]]],
                            )
                        ]
                    },
                }
            )
        }
    )
    t = write_transcript(env.root / "t" / "s.jsonl", edit_session())
    argv = [
        sys.executable,
        str(REPO / "bin" / "agd-memory"),
        "distill",
        str(t),
        "--dry-run",
        "--cwd",
        str(cwd),
    ]
    proc = subprocess.run(
        argv + (["--json"] if as_json else []), capture_output=True, timeout=120, check=False
    )
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "internal error" not in err
    out = proc.stdout.decode("utf-8")
    assert "lone \ufffd" in out
