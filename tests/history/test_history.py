"""The session history: format round trip, hygiene, redaction, idempotence, retention, forget,
and the commands a user runs (`history import`, `search --scope history`, `get --context`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from agd_memory import secrets
from agd_memory.history import capture, exchanges, files, search
from agd_memory.settings import Settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "store"))
from secrets_corpus import load  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def rec(role: str, content, t: str = "2026-11-02T10:00:00.000Z", **extra) -> dict:
    return {
        "type": role,
        "sessionId": "s-1",
        "timestamp": t,
        "message": {"role": role, "content": content},
        **extra,
    }


def write_jsonl(path: Path, records: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


SESSION = [
    {"type": "summary", "summary": "earlier"},
    rec(
        "user",
        "why did the migration fail? <system-reminder>#db-choice injected memory</system-reminder>",
        uuid="u1",
    ),
    rec(
        "assistant",
        [
            {"type": "text", "text": "Running it."},
            {"type": "tool_use", "name": "Bash", "input": {"command": "alembic upgrade head"}},
        ],
    ),
    rec("user", [{"type": "tool_result", "content": "TOOL OUTPUT psycopg2 DuplicateColumn"}]),
    rec("assistant", [{"type": "text", "text": "The error: DuplicateColumn owner_id."}]),
    rec("user", "caveat text", isMeta=True),
    rec("user", "subagent words", isSidechain=True),
    "{not json",
    rec("user", "switch the database to WAL", t="2026-11-03T09:00:00Z", uuid="u2"),
    rec(
        "assistant", [{"type": "text", "text": "Done: journal_mode=WAL."}], t="2026-11-03T09:00:05Z"
    ),
]


@pytest.fixture
def cfg(tmp_path) -> Settings:
    return Settings.load(
        {"CLAUDE_PLUGIN_DATA": str(tmp_path / "data"), "AGD_MEMORY_TODAY": "2026-12-01"}
    )


def test_exchanges_keep_words_and_tool_calls_but_no_output_or_injected_text(tmp_path):
    read = exchanges.read(write_jsonl(tmp_path / "t.jsonl", SESSION))
    assert [e.n for e in read.exchanges] == [1, 2] and read.bad_lines == 1
    first = read.exchanges[0]
    assert first.session == "s-1" and first.at == "2026-11-02T10:00:00Z"
    assert "tool: Bash command=alembic upgrade head" in first.text
    assert "DuplicateColumn owner_id" in first.text
    for gone in ("TOOL OUTPUT", "injected memory", "caveat text", "subagent words", "earlier"):
        assert gone not in first.text + read.exchanges[1].text


def test_idempotent_and_a_resumed_transcript_only_adds(tmp_path, cfg):
    memory = tmp_path / "mem" / "memory.agd"
    t = write_jsonl(tmp_path / "t.jsonl", SESSION[:5])
    assert capture.ingest(cfg, t, memory)[0] == 1
    folder = files.folder_of(memory)
    before = files.session_files(folder)[0].read_bytes()
    assert capture.ingest(cfg, t, memory)[0] == 0  # ended twice
    assert files.session_files(folder)[0].read_bytes() == before
    write_jsonl(t, SESSION)  # resumed: the same file grew
    assert capture.ingest(cfg, t, memory)[0] == 1
    assert [e.n for e in files.read_file(files.session_files(folder)[0])] == [1, 2]
    assert os.stat(files.session_files(folder)[0]).st_mode & 0o077 == 0


def test_a_session_with_no_exchange_writes_nothing(tmp_path, cfg):
    memory = tmp_path / "mem" / "memory.agd"
    t = write_jsonl(tmp_path / "t.jsonl", [{"type": "summary"}, rec("user", "x", isMeta=True)])
    assert capture.ingest(cfg, t, memory) == (0, 0)
    assert not files.folder_of(memory).exists()


body = st.lists(
    st.one_of(
        st.sampled_from(["~~~", "~~~~", "@p x", "@x-exchange n=1", "", "```", " @h1 y"]),
        st.text(max_size=30),
    ),
    max_size=8,
).map("\n".join)


@hsettings(max_examples=60, deadline=None)
@given(body)
def test_any_body_round_trips(tmp_path_factory, text):
    folder = tmp_path_factory.mktemp("h")
    e = exchanges.Exchange("s-1", 1, "2026-11-02T10:00:00Z", text, "u1")
    files.write(folder, exchanges.Read("s-1", [e], 0))
    assert files.read_file(files.session_files(folder)[0]) == [e._replace(text=files.normal(text))]


def test_a_1mb_reply_is_truncated_with_a_marker(tmp_path):
    big = "x" * 1_000_000
    read = exchanges.read(
        write_jsonl(
            tmp_path / "t.jsonl",
            [rec("user", "go"), rec("assistant", [{"type": "text", "text": big}])],
        )
    )
    text = read.exchanges[0].text
    assert len(text) < exchanges.PART_CHARS + 200 and "truncated: 1,000,000 characters" in text


@pytest.mark.parametrize("entry", load("secrets.txt"), ids=lambda e: e.title)
def test_every_secret_shape_is_redacted_before_writing(tmp_path, entry):
    if not secrets.find(entry.text):
        pytest.skip("the detector does not flag this entry on its own")
    folder = tmp_path / "h"
    t = write_jsonl(
        tmp_path / "t.jsonl",
        [rec("user", "here:\n" + entry.text), rec("assistant", [{"type": "text", "text": "ok"}])],
    )
    files.write(folder, exchanges.read(t))
    kept = files.session_files(folder)[0].read_text()
    assert not secrets.find(kept), entry.title


def test_retention_drops_old_then_largest_total_oldest_first(tmp_path):
    folder = tmp_path / "h"
    for i, day in enumerate(["2025-01-01", "2026-10-01", "2026-11-01", "2026-11-20"]):
        e = exchanges.Exchange(f"s{i}", 1, f"{day}T00:00:00Z", "words " * 200)
        files.write(folder, exchanges.Read(f"s{i}", [e], 0))
    import datetime as dt

    dropped = files.retain(folder, max_days=365, max_bytes=0, today=dt.date(2026, 12, 1))
    assert dropped == ["s0"]
    size = files.session_files(folder)[0].stat().st_size
    dropped = files.retain(folder, max_days=0, max_bytes=2 * size + 10, today=dt.date(2026, 12, 1))
    assert dropped == ["s1"]
    assert sorted(s.session for s in files.sessions(folder)) == ["s2", "s3"]


def test_forget_by_id_before_and_all(tmp_path):
    folder = tmp_path / "h"
    for i, day in enumerate(["2026-01-05", "2026-06-01", "2026-11-01"]):
        files.write(
            folder,
            exchanges.Read(f"s{i}", [exchanges.Exchange(f"s{i}", 1, f"{day}T00:00:00Z", "t")], 0),
        )
    assert files.forget(folder, ["s1"]) == ["s1"]
    assert files.forget(folder, before="2026-02-01") == ["s0"]
    assert files.forget(folder) == ["s2"] and files.session_files(folder) == []


def test_search_ranks_the_answering_exchange_and_the_index_follows_changes(tmp_path, cfg):
    memory = tmp_path / "mem" / "memory.agd"
    capture.ingest(cfg, write_jsonl(tmp_path / "t.jsonl", SESSION), memory)
    folder = files.folder_of(memory)
    hits = search.search(folder, "when did we switch to WAL", cfg)
    assert hits[0].id == "h-s-1-2" and hits[0].exchange.at.startswith("2026-11-03")
    assert search.search(folder, "migration DuplicateColumn", cfg)[0].id == "h-s-1-1"
    files.forget(folder)
    assert search.search(folder, "WAL", cfg) == []


def cli(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "bin" / "agd-memory"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_import_search_get_forget_from_the_cli(tmp_path):
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "home" / ".claude"),
        "AGD_MEMORY_PROJECT_CWD": str(tmp_path / "proj"),
        "CLAUDE_PLUGIN_DATA": str(tmp_path / "data"),
    }
    (tmp_path / "proj").mkdir()
    d = tmp_path / "transcripts"
    d.mkdir()
    write_jsonl(d / "a.jsonl", SESSION)
    (d / "b.jsonl").write_bytes(b"\xff\xfe garbage\n")
    r = cli(env, "history", "import", str(d))
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "2 exchanges from 1 sessions" in r.stdout
    assert cli(env, "history", "import", str(d)).stdout.startswith("0 exchanges")
    hits = json.loads(
        cli(
            env, "search", "--scope", "history", "--json", "--limit", "5", "exact migration error"
        ).stdout
    )
    assert (
        hits[0]["layer"] == "history"
        and hits[0]["session"] == "s-1"
        and "DuplicateColumn" in hits[0]["text"]
    )
    assert hits[0]["at"] == "2026-11-02T10:00:00Z"
    got = json.loads(
        cli(env, "get", "--scope", "history", "--context", "1", "--json", hits[0]["id"]).stdout
    )
    assert [e["n"] for e in got["entries"]] == [1, 2]
    assert "1 sessions" in cli(env, "history").stdout
    assert cli(env, "history", "forget", "--all").returncode == 0
    assert json.loads(cli(env, "search", "--scope", "history", "--json", "WAL").stdout) == []


def test_doctor_reports_the_history_and_a_file_that_does_not_read(tmp_path, cfg):
    from agd_memory.maintenance import doctor

    memory = tmp_path / "mem" / "memory.agd"
    capture.ingest(cfg, write_jsonl(tmp_path / "t.jsonl", SESSION), memory)
    ctx = doctor.Context(cfg, [("project", memory)], tmp_path, tmp_path / "settings.json")
    (ok,) = doctor.history(ctx, [])
    assert ok.level == "ok" and "1 sessions since 2026-11," in ok.message
    bad = files.folder_of(memory) / "2026-11" / "torn.agd"
    bad.write_text("not agd\n")
    found = doctor.history(ctx, [])
    assert [f.level for f in found] == ["ok", "warn"] and "torn.agd" in found[1].message


def test_a_torn_session_file_is_skipped_by_search_not_fatal(tmp_path, cfg):
    memory = tmp_path / "mem" / "memory.agd"
    capture.ingest(cfg, write_jsonl(tmp_path / "t.jsonl", SESSION), memory)
    folder = files.folder_of(memory)
    (folder / "2026-11" / "torn.agd").write_text("not agd\n@x-exchange n=1\n~~~\nunclosed\n")
    assert search.search(folder, "WAL", cfg)[0].id == "h-s-1-2"


def test_the_index_is_rebuilt_when_a_shard_is_from_another_generation(tmp_path, cfg):
    from agd_memory import diskcache
    from agd_memory.history import index

    memory = tmp_path / "mem" / "memory.agd"
    capture.ingest(cfg, write_jsonl(tmp_path / "t.jsonl", SESSION), memory)
    folder = files.folder_of(memory)
    assert search.search(folder, "WAL", cfg)[0].id == "h-s-1-2"
    idx = index.load(folder, cfg)
    shard = index.shard_of(search.query_words("WAL", cfg)[0])
    # a crash between the shard writes and the table write: the shard is a generation ahead
    diskcache.write(
        folder / ".cache", index.KIND, f"shard-{shard}", idx.key, {"gen": idx.gen + 1, "post": {}}
    )
    index._LOADED.clear()
    assert search.search(folder, "WAL", cfg)[0].id == "h-s-1-2"


def test_search_follows_new_changed_and_forgotten_sessions(tmp_path, cfg):
    folder = tmp_path / "h"
    for i in range(5):
        files.write(
            folder,
            exchanges.Read(
                f"s{i}",
                [
                    exchanges.Exchange(
                        f"s{i}",
                        1,
                        "2026-11-01T00:00:00Z",
                        ["alpha", "bravo", "charlie", "delta", "echo"][i] + " words",
                    )
                ],
                0,
            ),
        )
    assert [h.id for h in search.search(folder, "delta", cfg)] == ["h-s3-1"]
    files.write(
        folder,
        exchanges.Read("s3", [exchanges.Exchange("s3", 2, "2026-11-01T00:01:00Z", "zebra")], 0),
    )
    assert [h.id for h in search.search(folder, "zebra", cfg)] == ["h-s3-2"]
    assert [h.id for h in search.search(folder, "delta", cfg)] == ["h-s3-1"]  # not twice
    files.forget(folder, ["s3"])
    assert search.search(folder, "delta", cfg) == [] and search.search(folder, "zebra", cfg) == []
    files.write(
        folder,
        exchanges.Read(
            "s9", [exchanges.Exchange("s9", 1, "2026-11-02T00:00:00Z", "bravo again")], 0
        ),
    )
    assert [h.id for h in search.search(folder, "bravo", cfg)][0] in ("h-s1-1", "h-s9-1")


def test_a_uuid_session_starting_with_a_digit_reads_back(tmp_path):
    folder = tmp_path / "h"
    sid = "0eb3d15e-bc2f-46ab-a1c0-3822131bda2f"
    e = exchanges.Exchange(sid, 1, "2026-12-05T06:40:01Z", "user: hi")
    files.write(folder, exchanges.Read(sid, [e], 0))
    assert files.read_file(files.session_files(folder)[0]) == [e]
    assert files.neighbours(folder, files.block_id(sid, 1), 0) == [e]
    assert not files.broken(folder)


def test_a_forked_session_repeating_earlier_records_adds_only_its_new_exchanges(tmp_path, cfg):
    memory = tmp_path / "mem" / "memory.agd"
    capture.ingest(cfg, write_jsonl(tmp_path / "a.jsonl", SESSION), memory)
    copied = [{**r, "sessionId": "s-2"} if isinstance(r, dict) else r for r in SESSION] + [
        rec(
            "user",
            "now enable the page cache",
            t="2026-11-04T09:00:00Z",
            uuid="u3",
            sessionId="s-2",
        ),
        rec("assistant", [{"type": "text", "text": "cache_size=-64000 set."}], sessionId="s-2"),
    ]
    assert capture.ingest(cfg, write_jsonl(tmp_path / "b.jsonl", copied), memory)[0] == 1
    kept = {s.session: s.exchanges for s in files.sessions(files.folder_of(memory))}
    assert kept == {"s-1": 2, "s-2": 1}
    assert capture.ingest(cfg, write_jsonl(tmp_path / "b.jsonl", copied), memory)[0] == 0
    # the same through import, in one run
    other = tmp_path / "other" / "memory.agd"
    d = tmp_path / "both"
    d.mkdir()
    write_jsonl(d / "a.jsonl", SESSION)
    write_jsonl(d / "b.jsonl", copied)
    capture.import_all(cfg, [d], other, say=lambda m: None)
    assert {s.session: s.exchanges for s in files.sessions(files.folder_of(other))} == kept


def test_an_update_writes_only_the_delta_until_it_is_merged_and_ranks_as_a_rebuild(
    tmp_path, cfg, monkeypatch
):
    from agd_memory import diskcache
    from agd_memory.history import index

    monkeypatch.setattr(index, "DELTA_DOCS", 6)
    folder = tmp_path / "h"
    words = ["wal journal", "merge method squash", "flaky test retry", "wal checkpoint"]

    def add(i: int) -> None:
        e = [
            exchanges.Exchange(f"s{i}", n, f"2026-11-{i + 1:02d}T00:0{n}:00Z", f"{w} s{i}")
            for n, w in enumerate(words, 1)
        ]
        files.write(folder, exchanges.Read(f"s{i}", e, 0))

    def shard_gens() -> set:
        key = index.load(folder, cfg).key
        return {diskcache.read(folder / ".cache", index.KIND, f"shard-{i}", key)["gen"]
                for i in range(index.SHARDS)}  # fmt: skip

    add(0)
    search.search(folder, "wal", cfg)
    built = shard_gens()
    add(1)  # 4 exchanges: kept in the delta, the shards are not rewritten
    got = [h.id for h in search.search(folder, "wal checkpoint", cfg, limit=8)]
    assert shard_gens() == built
    assert got[:2] in (["h-s1-4", "h-s0-4"], ["h-s0-4", "h-s1-4"])
    add(2)  # past DELTA_DOCS: merged, every shard rewritten once
    files.forget(folder, ["s0"])
    ours = [(h.id, round(h.score, 6)) for h in search.search(folder, "wal squash", cfg, limit=8)]
    assert shard_gens() != built
    assert not any(i.startswith("h-s0-") for i, _ in ours)
    index._LOADED.clear()
    rebuilt = index.load(folder, cfg, rebuild=True)
    assert ours == [
        (h.id, round(h.score, 6))
        for h in search._ranked(rebuilt, search.query_words("wal squash", cfg), 8)
    ]
