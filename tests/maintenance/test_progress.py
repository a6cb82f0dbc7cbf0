"""Progress shows on a terminal and stays out of pipes."""

from __future__ import annotations

import io

from agd_memory import progress as progress_mod
from agd_memory.progress import Progress


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_counter_on_a_terminal_is_erased_at_the_end(monkeypatch):
    monkeypatch.setattr(progress_mod, "MIN_INTERVAL_S", 0.0)
    stream = FakeTty()
    with Progress(3, label="migrate refs", stream=stream) as p:
        for n in range(1, 4):
            p.step(n, f"file{n}.agd")
    text = stream.getvalue()
    assert "\rmigrate refs [1/3] file1.agd" in text
    assert "\rmigrate refs [3/3] file3.agd" in text
    assert text.endswith("\r" + " " * len("migrate refs [3/3] file3.agd") + "\r")


def test_redraws_are_throttled_but_the_last_step_always_shows():
    stream = FakeTty()
    p = Progress(1000, label="doctor", stream=stream)
    for n in range(1, 1001):
        p.step(n)
    p.close()
    assert stream.getvalue().count("\r") < 10
    assert "[1000/1000]" in stream.getvalue()


def test_silent_when_piped():
    stream = io.StringIO()
    with Progress(5, label="x", stream=stream) as p:
        for n in range(1, 6):
            p.step(n, "f")
    assert stream.getvalue() == ""


def test_migrate_over_many_files_prints_progress_only_on_a_tty(tmp_path, monkeypatch, run):
    files = []
    for n in range(3):
        path = tmp_path / f"m{n}.agd"
        path.write_text(f'@x-note desc="n{n}" [#a{n}]\n')
        files.append(path)
    status, out, err = run("migrate", "refs", *files)
    assert status == 0 and err == ""
    fake = FakeTty()
    monkeypatch.setattr(progress_mod.sys, "stderr", fake)
    monkeypatch.setattr(progress_mod, "MIN_INTERVAL_S", 0.0)
    status, out, _ = run("migrate", "refs", *files)
    assert status == 0
    assert "[3/3]" in fake.getvalue()
    assert "[" not in out  # the report on stdout carries no progress
