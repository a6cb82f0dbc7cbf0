"""After a distilled session the worker gives search keys to older entries with few (none,
or fewer than 12; `AGD_DISTILL_KEYS_PER_SESSION`), so a memory written before keys gains them."""

from __future__ import annotations

import json

import pytest
from distill_records import edit_session, trivial_session, write_transcript

from agd_memory import paths, store
from agd_memory.cli import main
from agd_memory.store import rules

DECISION = {
    "kind": "x-project",
    "id": "queue-db",
    "desc": "Job queue runs on Postgres",
    "body": "For SKIP LOCKED.",
    "keys": ["job queue", "background jobs"],
}
OLDER = [
    ("x-feedback", "money-decimal", "money amounts are Decimal", "Never float for prices."),
    ("x-user", "user-priya", "Priya leads mobile", "She signs off every store release."),
    ("x-project", "ci-matrix", "CI runs iOS and Android", "GitHub Actions matrix on push."),
]


@pytest.fixture
def project(env):
    cwd = env.project("app")
    mf = store.MemoryFile(env.memory_file(cwd), layer="project", settings=env.settings())
    for kind, block_id, desc, body in OLDER:
        mf.save(kind, block_id, body, desc=desc)
    enough = [f"existing key {n}" for n in range(rules.MIN_KEYS)]
    mf.save("x-project", "keyed", "Has keys.", desc="already keyed", keys=enough)
    mf.save("x-project", "old-way", "Superseded.", desc="the old way")
    mf.save("x-project", "new-way", "The new way.", desc="the new way", supersedes=["old-way"])
    return cwd, mf


def unkeyed(mf) -> list[str]:
    """The ids a backfill sends, in file order: entries without keys, not superseded."""
    return [
        e.id
        for e in mf.entries()
        if e.is_memory and e.status != "superseded" and "keys" not in e.attrs
    ]


def distil(cwd, env, session: str = "s") -> int:
    t = write_transcript(env.root / f"{session}.jsonl", edit_session())
    return main(["distill", str(t), "--cwd", str(cwd)])


def test_older_entries_without_keys_get_them_after_a_distilled_session(
    env, fake_claude, project, capsys
) -> None:
    cwd, mf = project
    before = {e.id: e for e in mf.entries()}
    unkeyed_before = unkeyed(mf)
    assert sorted(unkeyed_before) == ["ci-matrix", "money-decimal", "new-way", "user-priya"]
    fake_claude.script(
        {"proposals": [DECISION]}, fake_claude.keys_answer(["money-decimal", "user-priya"])
    )
    assert distil(cwd, env) == 0
    out = capsys.readouterr().out
    assert "saved: 1 proposed, 1 saved; search keys given to 2 older entries" in out
    distill_call, keys_call = fake_claude.calls()
    assert "<memory-toc>" in distill_call["stdin"]
    # the new entry (keyed by the distiller), keyed and superseded entries are not sent
    assert fake_claude.sent_ids()[1] == [i for i in before if i in unkeyed_before]
    schema = json.loads(keys_call["argv"][keys_call["argv"].index("--json-schema") + 1])
    assert "entries" in schema["properties"]
    after = {e.id: e for e in mf.entries()}
    assert after["money-decimal"].attrs["keys"] == fake_claude.default_keys("money-decimal")
    assert after["user-priya"].attrs["keys"] == fake_claude.default_keys("user-priya")
    assert "keys" not in after["ci-matrix"].attrs  # the model gave none: nothing invented
    enough = ", ".join(f"existing key {n}" for n in range(rules.MIN_KEYS))
    assert after["keyed"].attrs["keys"] == enough
    for block_id in ("money-decimal", "user-priya"):  # keys are not a change of the fact
        assert after[block_id].body == before[block_id].body
        assert after[block_id].attrs.get("updated") == before[block_id].attrs.get("updated")


def test_the_number_per_session_is_bounded_and_zero_turns_it_off(
    env, fake_claude, project, monkeypatch, capsys
) -> None:
    cwd, mf = project
    monkeypatch.setenv("AGD_DISTILL_KEYS_PER_SESSION", "2")
    first, second = unkeyed(mf)[:2], unkeyed(mf)[2:]
    # the fake answers call N with response N, whichever session makes it
    fake_claude.script(
        {"proposals": [DECISION]},
        fake_claude.keys_answer(first),
        {"proposals": []},
        fake_claude.keys_answer(second),
        {"proposals": []},
    )
    distil(cwd, env)
    assert fake_claude.sent_ids()[1] == first
    distil(cwd, env, "s2")  # the next session picks up where this one stopped
    assert fake_claude.sent_ids()[3] == second
    assert all("keys" in e.attrs for e in mf.entries() if e.is_memory and e.id != "old-way")
    monkeypatch.setenv("AGD_DISTILL_KEYS_PER_SESSION", "0")
    mf.save("x-project", "fresh", "No keys yet.", desc="a fresh fact")
    distil(cwd, env, "s3")
    assert len(fake_claude.calls()) == 5  # the distiller's call only


def test_the_global_layer_comes_after_the_project(env, fake_claude, project) -> None:
    cwd, mf = project
    settings = env.settings()
    global_path = paths.resolve(settings, cwd=str(cwd)).global_.path
    store.MemoryFile(global_path, layer="global", settings=settings).save(
        "x-user", "user-fish", "Uses fish.", desc="fish shell"
    )
    fake_claude.script({"proposals": [DECISION]}, fake_claude.keys_answer([]))
    distil(cwd, env)
    assert fake_claude.sent_ids()[1:] == [unkeyed(mf), ["user-fish"]]


def test_no_backfill_for_a_session_gated_out_or_a_failed_distil(
    env, fake_claude, project, monkeypatch
) -> None:
    cwd, _ = project
    t = write_transcript(env.root / "trivial.jsonl", trivial_session())
    main(["distill", str(t), "--cwd", str(cwd)])
    assert fake_claude.calls() == []  # gated out: nothing costs money
    monkeypatch.setenv("AGD_DISTILL_RETRIES", "1")
    fake_claude.script({"exit": 1, "stderr": "API Error: 500"})
    distil(cwd, env)
    assert len(fake_claude.calls()) == 1


def test_a_failed_keys_run_leaves_the_distilled_session_saved(
    env, fake_claude, project, monkeypatch, capsys
) -> None:
    cwd, mf = project
    monkeypatch.setenv("AGD_DISTILL_RETRIES", "1")
    fake_claude.script({"proposals": [DECISION]}, {"exit": 1, "stderr": "API Error: 500"})
    assert distil(cwd, env) == 0
    assert "saved: 1 proposed, 1 saved" in capsys.readouterr().out
    entries = {e.id: e for e in mf.entries()}
    assert "queue-db" in entries and "keys" not in entries["money-decimal"].attrs
