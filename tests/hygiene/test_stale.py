"""`agd-memory stale` against a real git repository: files moved, deleted, edited a little
or a lot, symbols renamed; the verdict cache follows the code; nothing is changed."""

from __future__ import annotations

import json
import os

from agd_memory import cli, store
from agd_memory.hygiene import staleness, usage, verdicts


def memory(env, repo) -> store.MemoryFile:
    return store.MemoryFile(env.memory_file(repo.root), layer="project", settings=env.settings())


def seed(env, repo) -> store.MemoryFile:
    mf = memory(env, repo)
    mf.save("x-fact", "pdf-file", "Invoices are rendered in src/billing/pdf.py.", desc="pdf")
    mf.save("x-fact", "totals", "The tax rule is at src/billing/pdf.py:24-26.")
    mf.save("x-fact", "renderer", "Entry point: render_invoice() in src/billing/pdf.py.")
    mf.save("x-fact", "model", "The invoice model is in model.py.")
    mf.save("x-fact", "prose", "We ship on Fridays, e.g. after the review.")
    return mf


def stale_of(env, repo) -> dict[str, list[str]]:
    return {s.id: list(s.reasons) for s in staleness.check(memory(env, repo), repo.root)}


def run(capsys, *argv: str) -> str:
    assert cli.main(list(argv)) == 0
    return capsys.readouterr().out


def test_fresh_code_is_not_stale(env, repo, capsys):
    seed(env, repo)
    assert stale_of(env, repo) == {}
    assert "no stale entries" in run(capsys, "stale")


def test_deleted_and_moved_files(env, repo, capsys):
    seed(env, repo)
    repo.git("mv", "src/billing/model.py", "src/model.py")
    repo.git("rm", "-q", "src/billing/pdf.py")
    repo.commit()
    assert stale_of(env, repo) == {
        "pdf-file": ["src/billing/pdf.py: gone"],
        "totals": ["src/billing/pdf.py:24-26: gone"],
        "renderer": ["src/billing/pdf.py: gone", "render_invoice(): src/billing/pdf.py is gone"],
        "model": ["src/billing/model.py: gone"],
    }
    before = env.memory_file(repo.root).read_bytes()
    out = run(capsys, "stale")
    assert "4 entries cite code that is gone or changed" in out
    assert "#pdf-file (project): pdf\n  src/billing/pdf.py: gone\n" in out
    assert "nothing was changed" in out
    assert env.memory_file(repo.root).read_bytes() == before  # nothing deleted or marked


def test_a_small_edit_or_moved_lines_keep_an_entry_fresh(env, repo):
    seed(env, repo)
    edited = repo.PDF.replace("net * 19 // 100", "net * 19 // 100  # VAT")
    repo.write("src/billing/pdf.py", "# a new comment line on top of the file\n\n" + edited)
    repo.commit()
    assert stale_of(env, repo) == {}


def test_a_rewrite_or_changed_lines_are_reported(env, repo):
    seed(env, repo)
    lines = repo.PDF.split("\n")
    # the three cited lines (24-26) rewritten, the rest kept
    lines[23:26] = [
        "def compute_totals(items, currency, rate):",
        "    gross = sum(i.gross for i in items)",
        '    return {"gross": gross, "rate": rate}',
    ]
    repo.write("src/billing/pdf.py", "\n".join(lines))
    repo.commit()
    assert stale_of(env, repo) == {"totals": ["src/billing/pdf.py:24-26: those lines changed"]}
    repo.write("src/billing/pdf.py", "\n".join(f"value_{n} = compute({n}, 'x')" for n in range(40)))
    repo.commit()
    found = stale_of(env, repo)
    assert found["pdf-file"][0].startswith("src/billing/pdf.py: changed a lot (0 of 8 sampled")
    assert found["renderer"][1] == "render_invoice(): no longer in src/billing/pdf.py"


def test_a_renamed_symbol_is_reported_and_the_json_says_what_changed(env, repo, capsys):
    seed(env, repo)
    repo.write("src/billing/pdf.py", repo.PDF.replace("render_invoice", "render_document"))
    repo.commit()
    data = json.loads(run(capsys, "stale", "--json"))
    assert data["stale"] == [
        {
            "layer": "project",
            "id": "renderer",
            "file": str(env.memory_file(repo.root)),
            "changes": ["render_invoice(): no longer in src/billing/pdf.py"],
        }
    ]


def test_the_cache_follows_the_code_and_the_prompt_path_reads_only_the_last_verdicts(env, repo):
    mf = seed(env, repo)
    assert stale_of(env, repo) == {}
    assert verdicts.known_stale(mf.path, mf.cache_dir) == {}
    repo.write("src/billing/pdf.py", repo.PDF.replace("render_invoice", "render_document"))
    # the prompt path never reads code: the last verdicts stand until the next check
    assert verdicts.known_stale(mf.path, mf.cache_dir) == {}
    assert stale_of(env, repo) == {
        "renderer": ["render_invoice(): no longer in src/billing/pdf.py"]
    }
    assert verdicts.known_stale(mf.path, mf.cache_dir) == {
        "renderer": ["render_invoice(): no longer in src/billing/pdf.py"]
    }
    mf.save("x-fact", "renderer", "Entry point: render_document() in src/billing/pdf.py.")
    # a changed memory file makes the last verdicts unbelievable until checked again
    assert verdicts.known_stale(mf.path, mf.cache_dir) == {}
    assert stale_of(env, repo) == {}


def test_unused_entries_are_candidates_for_consolidation(env, repo, capsys):
    seed(env, repo)
    mf = memory(env, repo)
    day = 86400.0
    now = 1_800_000_000.0
    usage.record(env.data, mf.path, ["pdf-file"], now=now - 200 * day)  # counting starts
    usage.record(env.data, mf.path, ["totals", "model"], now=now - 5 * day)
    written = [(mf.path, e.id, "2026-01-01") for e in mf.entries() if e.is_memory]
    assert sorted((i, t or 0) for _, i, t in usage.unused(written, env.data, 90, now=now)) == [
        ("pdf-file", int(now - 200 * day)),
        ("prose", 0),
        ("renderer", 0),
    ]
    # an entry written recently, or a log younger than the horizon, reports nothing
    assert usage.unused([(mf.path, "renderer", "2099-01-01")], env.data, 90, now=now) == []
    assert usage.unused(written, env.data, 365, now=now) == []


def test_the_usage_log_stays_bounded_and_keeps_the_latest_use(env, repo, monkeypatch):
    mf = memory(env, repo)
    monkeypatch.setattr(usage, "MAX_BYTES", 2_000)
    for n in range(200):
        usage.record(env.data, mf.path, [f"id-{n % 7}", "always"], now=1_000_000 + n)
    assert usage.log_path(env.data).stat().st_size <= 2_000 + 200
    since, last = usage.last_used(env.data)
    assert since == 1_000_000
    assert last[(str(mf.path), "always")] == 1_000_199
    assert last[(str(mf.path), "id-3")] == max(1_000_000 + n for n in range(200) if n % 7 == 3)


def test_stale_verb_reports_unused_entries_from_recall_and_get(env, repo, capsys):
    seed(env, repo)
    run(capsys, "get", "pdf-file")
    since, last = usage.last_used(env.data)
    assert (str(env.memory_file(repo.root)), "pdf-file") in last
    assert "--unused-days must be 0 or more" in _usage_error(capsys)


def _usage_error(capsys) -> str:
    assert cli.main(["stale", "--unused-days", "-1"]) == 2
    return capsys.readouterr().err


def test_doctor_warns_about_each_stale_entry(env, repo):
    from agd_memory.maintenance import doctor

    mf = seed(env, repo)
    repo.git("rm", "-q", "src/billing/model.py")
    repo.commit()
    ctx = doctor.default_context(env.settings(), cwd=str(repo.root))
    assert ctx.code_root == repo.root
    findings = [f for f in doctor.run_checks(ctx) if f.check == "stale"]
    assert [(f.level, f.message) for f in findings] == [
        (
            "warn",
            f"#model in {mf.path} cites code that changed: src/billing/model.py: gone; "
            "update the entry (agd-memory save) or delete it",
        )
    ]


def test_a_check_out_of_time_leaves_the_unread_files_for_the_next_one(env, repo):
    mf = seed(env, repo)
    repo.write("src/billing/pdf.py", repo.PDF.replace("render_invoice", "render_document"))
    # past its deadline, a check reads no changed file: nothing is reported yet ...
    assert staleness.check(memory(env, repo), repo.root, deadline=0.0) == []
    assert verdicts.known_stale(mf.path, mf.cache_dir) == {}
    # ... and the next check, in time, judges what was left
    assert stale_of(env, repo) == {
        "renderer": ["render_invoice(): no longer in src/billing/pdf.py"]
    }


def test_a_fifo_at_the_usage_log_neither_blocks_nor_fails_recall(tmp_path):
    import threading

    from agd_memory.hygiene import usage

    data = tmp_path / "data"
    data.mkdir()
    os.mkfifo(usage.log_path(data))
    done = threading.Event()

    def record() -> None:
        usage.record(data, tmp_path / "memory.agd", ["a", "b"])
        done.set()

    threading.Thread(target=record, daemon=True).start()
    assert done.wait(10), "recording a use blocked on a FIFO"


def test_citations_that_leave_the_repository_are_never_read(env, repo, tmp_path, capsys):
    """A committed `code=` is untrusted: an absolute path, `..`, a link in the checkout that
    leads out, or a NUL would let a stranger's file probe the user's files at every session
    start; such citations are ignored, and the others are still checked."""
    secret = tmp_path / "outside" / "passwd"
    secret.parent.mkdir()
    secret.write_text("root:x:0:0:root:/root:/bin/bash\n")
    os.symlink(secret.parent, repo.root / "linked")
    os.symlink(".git", repo.root / "gitlink")  # git's own folder is not a worktree file
    mf = memory(env, repo)
    mf.save("x-fact", "pdf-file", "Invoices are rendered in src/billing/pdf.py.", desc="pdf")
    text = mf.path.read_text()
    planted = [
        ("abs", f"{secret} 00000000"),
        ("up", "../../../../../../../../no/such/file 00000000"),
        ("link", "linked/passwd 00000000"),
        ("nul", "a\x00b 00000000"),
        ("gitcfg", ".git/config 00000000"),
        ("gitlinked", "gitlink/config 00000000"),
    ]
    for block_id, code in planted:
        text += f'\n@x-fact desc="{block_id}" code="{code}" [#{block_id}]\n~~~\nx\n~~~\n'
    mf.path.write_text(text)
    repo.git("rm", "-q", "src/billing/pdf.py")
    repo.commit()
    assert stale_of(env, repo) == {"pdf-file": ["src/billing/pdf.py: gone"]}
    assert "1 entries cite code that is gone" in run(capsys, "stale")
