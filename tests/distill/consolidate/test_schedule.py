"""The automatic pass: at most once per AGD_CONSOLIDATE_EVERY_DAYS and only after
AGD_CONSOLIDATE_MIN_NEW new entries, started by the distiller's detached worker after the
sessions it distilled, never by the hook itself."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from consolidate_helpers import RECORDED, answer, blocks

from agd_memory import paths, store
from agd_memory.distill import consolidate as cons
from agd_memory.distill import review

sys.path.insert(0, str(Path(__file__).parents[1]))
from distill_records import edit_session, wait_for, write_transcript  # noqa: E402

DAY = 86400.0
DECISION = {
    "kind": "x-project",
    "id": "queue-db",
    "desc": "Job queue on Postgres",
    "body": "For SKIP LOCKED.",
}


def open_memory(env, memory: Path) -> store.MemoryFile:
    return store.MemoryFile(memory, layer="project", settings=env.settings())


def test_a_pass_waits_for_its_period_and_for_new_entries(
    env, fake_claude, memory, monkeypatch
) -> None:
    monkeypatch.setenv("AGD_CONSOLIDATE_MIN_NEW", "30")
    fake_claude.script(answer(RECORDED["answer"]["changes"]))
    mf, logged = open_memory(env, memory), []
    t0 = 1_800_000_000.0
    assert cons.run_scheduled(env.settings(), mf, log=logged.append, submit=review.submit_plan, now=t0) is None  # first seen
    assert cons.run_scheduled(env.settings(), mf, log=logged.append, submit=review.submit_plan, now=t0 + 6.9 * DAY) is None
    assert fake_claude.calls() == [] and "less than 7 days ago" in logged[-1]
    plan = cons.run_scheduled(env.settings(), mf, log=logged.append, submit=review.submit_plan, now=t0 + 7.1 * DAY)
    assert plan is not None and len(fake_claude.calls()) == 1
    assert "hello-note" not in blocks(memory)  # review off: written, with a .bak
    assert memory.with_name("memory.agd.bak").is_file()
    # 42 active before, 32 after: a period later, but not 30 new entries since
    assert cons.run_scheduled(env.settings(), mf, log=logged.append, submit=review.submit_plan, now=t0 + 20 * DAY) is None
    assert "needs 30" in logged[-1] and len(fake_claude.calls()) == 1
    for n in range(30):
        mf.save("x-project", f"fact-{n}", f"Fact number {n} about the service.", desc=f"fact {n}")
    fake_claude.script(answer([]))
    assert cons.run_scheduled(env.settings(), mf, log=logged.append, submit=review.submit_plan, now=t0 + 20 * DAY) is not None
    assert len(fake_claude.calls()) == 2


def test_zero_days_turns_it_off(env, fake_claude, memory, monkeypatch) -> None:
    monkeypatch.setenv("AGD_CONSOLIDATE_EVERY_DAYS", "0")
    logged: list[str] = []
    mf = open_memory(env, memory)
    for now in (0.0, 400 * DAY):
        assert cons.run_scheduled(env.settings(), mf, log=logged.append, submit=review.submit_plan, now=now) is None
    assert fake_claude.calls() == [] and "off" in logged[-1]


def test_the_detached_worker_runs_a_due_pass_after_the_session(
    env, fake_claude, memory, monkeypatch
) -> None:
    from agd_memory.distill import hook

    monkeypatch.setenv("AGD_DISTILL_KEYS_PER_SESSION", "0")
    settings = env.settings()
    target = paths.resolve(settings).project.path
    state = settings.data_dir / "distill" / cons.STATE_FILE
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text(json.dumps({str(target): {"at": 0, "entries": 0}}))  # a pass long due
    fake_claude.script({"proposals": [DECISION]}, answer(RECORDED["answer"]["changes"]))
    cwd = env.project("app")
    transcript = write_transcript(env.root / "s1.jsonl", edit_session())
    payload = {
        "session_id": "s-1",
        "transcript_path": str(transcript),
        "cwd": str(cwd),
        "hook_event_name": "SessionEnd",
        "reason": "prompt_input_exit",
    }
    hook.session_end(payload, settings)
    assert len(fake_claude.calls()) < 2  # the hook returned before any pass

    def recorded() -> dict:
        return json.loads(state.read_text())[str(target)]

    # what the pass left (7 superseded, 3 deleted), recorded when it is done
    wait_for(lambda: recorded()["entries"] == 43 - 10, timeout=60)
    distilled, consolidated = fake_claude.calls()
    assert "<session" in distilled["stdin"] and "<entries>" in consolidated["stdin"]
    assert 'id="queue-db"' in consolidated["stdin"]  # after the session's own entry was saved
    after = blocks(memory)
    assert "queue-db" in after and "hello-note" not in after
