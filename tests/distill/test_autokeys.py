"""Search keys soon after a write (`distill/autokeys.py`): an entry saved without keys by MCP
or the CLI, or found keyless at SessionStart, gets keys from one detached keys run (the
scripted fake `claude` on PATH), locked, batched, debounced and backed off after failures."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from agd_memory import store
from agd_memory.claude import hooks
from agd_memory.cli import main
from agd_memory.distill import autokeys, runlog
from agd_memory.mcp import tools
from agd_memory.settings import Settings
from agd_memory.store.rules import MIN_KEYS

ENOUGH = [f"existing key {n}" for n in range(MIN_KEYS)]
"""As many keys as a keys run leaves an entry: no run is asked for it."""

WAIT_S = 60.0
"""Bound on every wait for the detached worker (it settles `autokeys.SETTLE_S` first)."""


@pytest.fixture
def project(env, fake_claude, monkeypatch):
    monkeypatch.setenv("AGD_DISTILL_KEYS_EVERY_S", "60")
    cwd = env.project("app")
    return cwd, env.memory_file(cwd)


def keys_of(path: Path) -> dict[str, str]:
    mf = store.MemoryFile(path, layer="project", settings=Settings.load())
    return {e.id: str(e.attrs.get("keys") or "") for e in mf.entries() if e.is_memory}


def wait_for(check, what: str):
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"gave up after {WAIT_S:.0f}s waiting for {what}")


def worker_done(path: Path) -> bool:
    """No keys worker holds the file's lock (the worker removes it as it ends)."""
    return not autokeys._lock_path(Settings.load(), path).exists()


def keys_runs() -> list[dict]:
    return [r for r in runlog.recent_runs(Settings.load(), 0) if r.get("run") == "keys"]


def cli_save(cwd: Path, block_id: str, *extra: str) -> None:
    argv = ["save", "x-project", block_id, "--desc", f"{block_id} desc", "--content", "Body."]
    assert main([*argv, "--cwd", str(cwd), *extra]) == 0


@pytest.fixture
def spawned(monkeypatch) -> list[list[str]]:
    """Every keys worker started in this process (the real spawn still runs)."""
    seen: list[list[str]] = []
    real = subprocess.run

    def record(argv, *a, **kw):  # type: ignore[no-untyped-def]
        if any("agd_memory.distill.autokeys" in str(x) for x in argv):
            seen.append([str(x) for x in argv])
        return real(argv, *a, **kw)

    monkeypatch.setattr(subprocess, "run", record)
    return seen


def test_mcp_save_without_keys_gets_keys_soon_without_a_session_ending(
    project, fake_claude
) -> None:
    cwd, path = project
    fake_claude.script(fake_claude.keys_answer(["queue-db"]))
    ws = tools.Workspace(Settings.load(), cwd)
    tools.save(ws, kind="x-project", id="queue-db", content="SKIP LOCKED.", desc="job queue")
    assert keys_of(path)["queue-db"] == ""  # the save itself returns at once

    wait_for(lambda: keys_of(path)["queue-db"], "keys on #queue-db")
    wait_for(lambda: worker_done(path), "the worker to end")
    assert keys_of(path)["queue-db"] == fake_claude.default_keys("queue-db")
    assert fake_claude.sent_ids() == [["queue-db"]]
    assert all(c["guard"] == "1" for c in fake_claude.calls())  # the distiller's child
    [run] = keys_runs()
    assert run["outcome"] == "keys" and run["memory_file"] == str(path)


def test_mcp_save_with_enough_keys_starts_nothing(project, fake_claude, spawned) -> None:
    cwd, path = project
    ws = tools.Workspace(Settings.load(), cwd)
    tools.save(ws, kind="x-project", id="queue-db", content="B.", desc="d", keys=ENOUGH)
    assert spawned == []


def test_mcp_save_with_a_few_keys_gets_more_after_them(project, fake_claude) -> None:
    """A model or a user saving with a few keys, often in one language: a keys run adds
    the rest after them (issue 26)."""
    cwd, path = project
    fake_claude.script(fake_claude.keys_answer(["queue-db"]))
    ws = tools.Workspace(Settings.load(), cwd)
    tools.save(ws, kind="x-project", id="queue-db", content="B.", desc="d", keys=["job queue"])
    want = f"job queue, {fake_claude.default_keys('queue-db')}"
    wait_for(lambda: keys_of(path)["queue-db"] == want, "more keys on #queue-db")
    wait_for(lambda: worker_done(path), "the worker to end")


def test_two_quick_cli_saves_are_keyed_by_one_run(project, fake_claude) -> None:
    cwd, path = project
    fake_claude.script(fake_claude.keys_answer(["first-fact", "second-fact"]))
    cli_save(cwd, "first-fact")
    cli_save(cwd, "second-fact")
    wait_for(lambda: all(keys_of(path).values()), "keys on both entries")
    wait_for(lambda: worker_done(path), "the worker to end")
    assert [sorted(ids) for ids in fake_claude.sent_ids()] == [["first-fact", "second-fact"]]
    assert len(keys_runs()) == 1


def test_a_failing_model_backs_off_instead_of_looping(project, fake_claude, spawned) -> None:
    cwd, path = project
    fake_claude.script({"exit": 1, "stderr": "API Error: 529 overloaded"})
    cli_save(cwd, "first-fact")
    settings = Settings.load()
    wait_for(lambda: autokeys._read_state(settings, path).get("failures"), "a failed run")
    wait_for(lambda: worker_done(path), "the worker to end")
    calls = len(fake_claude.calls())
    st = autokeys._read_state(settings, path)
    assert st["failures"] == 1 and st["retry_at"] > time.time() + 30  # one interval
    assert "529 overloaded" in st["error"]

    cli_save(cwd, "second-fact")  # during the backoff: no new run
    hooks.session_start(hooks.HookPayload(cwd=str(cwd)), settings)
    assert len(spawned) == 1
    assert len(fake_claude.calls()) == calls
    assert keys_of(path) == {"first-fact": "", "second-fact": ""}
    [run] = keys_runs()
    assert run["outcome"] == "failed" and "529 overloaded" in str(run["detail"])
    log = (settings.data_dir / "debug.log").read_text()
    assert "the last run failed, next try in" in log


def test_a_second_failure_doubles_the_wait(project, fake_claude) -> None:
    cwd, path = project
    fake_claude.script({"exit": 1, "stderr": "API Error: 529 overloaded"})
    settings = Settings.load()
    autokeys._write_state(settings, path, {"failures": 1, "retry_at": 0})
    cli_save(cwd, "first-fact")
    wait_for(lambda: autokeys._read_state(settings, path).get("failures") == 2, "a second failure")
    st = autokeys._read_state(settings, path)
    assert st["retry_at"] > time.time() + 90  # 2 x 60 s, less the time the run took


def test_session_start_on_keyless_entries_starts_one_run(project, fake_claude, spawned) -> None:
    cwd, path = project
    mf = store.MemoryFile(path, layer="project", settings=Settings.load())
    mf.save("x-project", "hand-made", "Written without keys.", desc="by hand")
    mf.save("x-project", "keyed", "Has keys.", desc="keyed", keys=ENOUGH)
    fake_claude.script(fake_claude.keys_answer(["hand-made"]))
    settings = Settings.load()
    hooks.session_start(hooks.HookPayload(cwd=str(cwd)), settings)
    hooks.session_start(hooks.HookPayload(cwd=str(cwd)), settings)  # a second session at once
    wait_for(lambda: keys_of(path)["hand-made"], "keys on #hand-made")
    wait_for(lambda: worker_done(path), "the worker to end")
    assert fake_claude.sent_ids() == [["hand-made"]]
    assert keys_of(path)["keyed"] == ", ".join(ENOUGH)
    hooks.session_start(hooks.HookPayload(cwd=str(cwd)), settings)  # now fully keyed
    assert len(spawned) <= 2 and len(keys_runs()) == 1


def test_an_entry_a_model_gave_few_keys_is_not_asked_again(project, fake_claude, spawned) -> None:
    """A model that answered with few keys would answer the same: no run asks again, at
    SessionStart or after the distiller's session (`keys.backfill` reads the same record)."""
    cwd, path = project
    mf = store.MemoryFile(path, layer="project", settings=Settings.load())
    mf.save("x-project", "terse", "Written without keys.", desc="by hand")
    fake_claude.script(fake_claude.keys_answer({"terse": ["one", "two"]}))
    settings = Settings.load()
    hooks.session_start(hooks.HookPayload(cwd=str(cwd)), settings)
    wait_for(lambda: keys_of(path)["terse"] == "one, two", "keys on #terse")
    wait_for(lambda: worker_done(path), "the worker to end")
    started = len(spawned)
    hooks.session_start(hooks.HookPayload(cwd=str(cwd)), settings)
    assert len(spawned) == started and autokeys.asked(settings, path) == {"terse"}


def test_session_start_on_a_keyed_memory_starts_nothing(project, spawned) -> None:
    cwd, path = project
    mf = store.MemoryFile(path, layer="project", settings=Settings.load())
    mf.save("x-project", "keyed", "Has keys.", desc="keyed", keys=ENOUGH)
    mf.save("x-project", "old", "Superseded.", desc="old way")
    mf.save("x-project", "new", "New way.", desc="new way", keys=ENOUGH, supersedes=["old"])
    settings = Settings.load()
    assert hooks.session_start(hooks.HookPayload(cwd=str(cwd)), settings)  # the TOC goes out
    assert spawned == []
    assert not autokeys.state_path(settings, path).exists()


@pytest.mark.parametrize(
    "variable, value",
    [
        ("AGD_DISTILL_KEYS_EVERY_S", "0"),
        ("AGD_DISTILL_KEYS_PER_SESSION", "0"),
        ("AGD_DISTILL_DISABLED", "1"),
        ("AGD_DISTILL_GUARD", "1"),
    ],
)
def test_off_switches_start_nothing(project, spawned, monkeypatch, variable, value) -> None:
    cwd, path = project
    monkeypatch.setenv(variable, value)
    cli_save(cwd, "first-fact")
    hooks.session_start(hooks.HookPayload(cwd=str(cwd)), Settings.load())
    assert spawned == []


def test_review_mode_queues_the_keys_and_does_not_ask_again(
    project, fake_claude, monkeypatch, spawned
) -> None:
    cwd, path = project
    monkeypatch.setenv("AGD_DISTILL_REVIEW", "1")
    fake_claude.script(fake_claude.keys_answer(["first-fact"]))
    cli_save(cwd, "first-fact")
    settings = Settings.load()
    wait_for(lambda: autokeys._read_state(settings, path).get("asked"), "the keys run")
    wait_for(lambda: worker_done(path), "the worker to end")
    assert keys_of(path) == {"first-fact": ""}  # not written: waiting for review
    status = main(["review", "--json", "--cwd", str(cwd)])
    assert status == 0
    hooks.session_start(hooks.HookPayload(cwd=str(cwd)), settings)
    assert len(spawned) == 1  # the save's run only: the waiting keys are not asked again
    assert len(fake_claude.calls()) == 1


def test_a_run_waits_out_the_interval_and_keys_what_was_saved_meanwhile(
    env, fake_claude, monkeypatch
) -> None:
    """In process, the worker's sleep recorded: the first round settles; an entry saved while
    the model was asked gets a second round, which waits out the interval first."""
    from agd_memory.distill import keys

    settings = Settings.load().replace(distill_keys_every_s=60.0)
    path = env.root / "memory.agd"
    mf = store.MemoryFile(path, layer="project", settings=settings)
    mf.save("x-project", "first-fact", "Body.", desc="first")
    fake_claude.script(
        fake_claude.keys_answer(["first-fact"]), fake_claude.keys_answer(["later-fact"])
    )
    real = keys.key_entries

    def key_then_save(*args, **kwargs):  # type: ignore[no-untyped-def]
        done = real(*args, **kwargs)
        if not mf.entry("later-fact"):
            mf.save("x-project", "later-fact", "Body.", desc="later")
        return done

    monkeypatch.setattr(keys, "key_entries", key_then_save)
    slept: list[float] = []
    autokeys.run(settings, path, "project", sleep=slept.append)
    assert fake_claude.sent_ids() == [["first-fact"], ["later-fact"]]
    assert all(keys_of(path).values())
    assert slept[0] == autokeys.SETTLE_S and 50 < slept[1] <= 60
    assert worker_done(path)
