"""The distiller's logs are rotated and never break a run."""

from __future__ import annotations

from agd_memory.distill import runlog


def test_logs_rotate_keeping_one_generation(env, monkeypatch) -> None:
    settings = env.settings()
    monkeypatch.setattr(runlog, "LOG_MAX_BYTES", 2000)
    monkeypatch.setattr(runlog, "RUNS_MAX_BYTES", 2000)
    for i in range(100):
        runlog.log(settings, f"line {i} " + "x" * 40)
        runlog.record_run(
            settings, {"session_id": f"s{i}", "outcome": "skipped", "detail": "y" * 40}
        )
    log = runlog.log_path(settings)
    assert log.stat().st_size <= 2000
    assert log.with_name("distill.log.1").stat().st_size <= 2000
    assert "line 99 " in log.read_text()
    assert not log.with_name("distill.log.2").exists()
    recent = runlog.recent_runs(settings, 5)
    assert [r["session_id"] for r in recent] == ["s95", "s96", "s97", "s98", "s99"]
    # --status reads across the rotation boundary.
    assert len(runlog.recent_runs(settings, 0)) > len(
        runlog.runs_path(settings).read_text().splitlines()
    )


def test_an_unwritable_data_folder_does_not_raise(env, tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    settings = env.settings().replace(data_dir=blocker)
    runlog.log(settings, "nowhere to go")
    runlog.record_run(settings, {"outcome": "x"})
    assert runlog.recent_runs(settings) == []


def test_multi_line_messages_keep_one_stamp_per_line(env) -> None:
    settings = env.settings()
    runlog.log(settings, "first\nsecond")
    lines = runlog.log_path(settings).read_text().splitlines()
    assert len(lines) == 2 and all(
        line.endswith(("first", "second")) and "Z [" in line for line in lines
    )
