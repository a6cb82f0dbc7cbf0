"""Session history: ingest and search speed, and disk, at N sessions of ~20 exchanges.

    python3 benchmarks/history.py [--sessions 100 1000 5000] [--runs 7]

For each N: a synthetic project history is built through the real ingest path (Claude
Code JSONL transcripts -> `history.capture.ingest`), then measured:
- ingest of one more session (CPU and wall, median of --runs, each a new session: the
  session file), then the index update the worker runs after it (retention, index),
- search, cold (a fresh interpreter, `agd-memory search --scope history --json`, minus a
  bare interpreter start) and warm (in process, the index loaded once), median over
  queries; the first search after the ingests (which brings the index up to date) apart,
- disk: session files and index vs the exchange text kept.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from agd_memory.history import capture, files, search  # noqa: E402
from agd_memory.settings import Settings  # noqa: E402

WORDS = [
    "migration",
    "database",
    "index",
    "schema",
    "deploy",
    "staging",
    "worker",
    "queue",
    "retry",
    "timeout",
    "cache",
    "parser",
    "token",
    "config",
    "build",
    "release",
    "branch",
    "merge",
    "test",
    "fixture",
    "coverage",
    "lint",
    "docker",
    "container",
    "volume",
    "network",
    "proxy",
    "certificate",
    "auth",
    "session",
    "cookie",
    "header",
    "request",
    "response",
    "latency",
    "memory",
    "leak",
    "profile",
    "trace",
    "span",
    "metric",
    "alert",
    "dashboard",
    "backup",
    "restore",
    "snapshot",
    "replica",
    "shard",
    "partition",
    "lock",
    "mutex",
    "thread",
    "async",
    "await",
    "future",
    "promise",
    "callback",
    "handler",
    "router",
    "endpoint",
    "payload",
    "schema",
    "validator",
    "serializer",
]
# Zipf-distributed vocabulary: the 64 common words first, then 4,000 rarer identifiers.
WORDS += [f"ident{i:04d}" for i in range(4000)]
WEIGHTS = [1.0 / (rank + 1) for rank in range(len(WORDS))]


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def transcript(path: Path, rng: random.Random, sid: str, day: int) -> None:
    lines = []
    for n in range(20):
        ts = f"2026-{1 + day // 28 % 12:02d}-{1 + day % 28:02d}T10:{n:02d}:00Z"
        ask = " ".join(rng.choices(WORDS, WEIGHTS, k=25)) + f" error E{rng.randint(1000, 99999)}?"
        say = " ".join(rng.choices(WORDS, WEIGHTS, k=120)) + f" PR #{rng.randint(1, 9999)}."
        lines.append(
            {
                "type": "user",
                "sessionId": sid,
                "timestamp": ts,
                "uuid": f"{sid}-{n}",
                "message": {"role": "user", "content": ask},
            }
        )
        lines.append(
            {
                "type": "assistant",
                "sessionId": sid,
                "timestamp": ts,
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": say},
                        {
                            "type": "tool_use",
                            "name": "Bash",
                            "input": {"command": f"pytest -q tests/test_{rng.choice(WORDS)}.py"},
                        },
                    ],
                },
            }
        )
        lines.append(
            {
                "type": "user",
                "sessionId": sid,
                "timestamp": ts,
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "content": "ok " * 200}],
                },
            }
        )
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


def measure(n: int, runs: int) -> dict:
    rng = random.Random(n)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = {"CLAUDE_PLUGIN_DATA": str(root / "data"), "AGD_MEMORY_TODAY": "2026-12-31"}
        settings = Settings.load(env)
        memory = root / "mem" / "memory.agd"
        tdir = root / "t"
        tdir.mkdir()
        for i in range(n):
            p = tdir / f"s{i}.jsonl"
            transcript(p, rng, f"s{i}", i)
            capture.ingest(settings, p, memory, keep=False)
            p.unlink()
        folder = files.folder_of(memory)
        queries = [" ".join(rng.choices(WORDS, WEIGHTS, k=4)) for _ in range(9)]
        c0, w0 = cpu(), time.perf_counter()
        search.search(folder, queries[0], settings, limit=5)
        first = (cpu() - c0, time.perf_counter() - w0)
        ingest_cpu, ingest_wall, update_cpu = [], [], []
        for r in range(runs):
            p = tdir / f"new{r}.jsonl"
            transcript(p, rng, f"new{r}", r)
            c0, w0 = cpu(), time.perf_counter()
            capture.ingest(settings, p, memory, keep=False)
            ingest_cpu.append(cpu() - c0)
            ingest_wall.append(time.perf_counter() - w0)
            c0 = cpu()
            capture.retain(settings, folder)
            capture.refresh(settings, folder)
            update_cpu.append(cpu() - c0)
        search.search(folder, queries[0], settings, limit=5)  # index up to date again
        warm_cpu, warm_wall = [], []
        for q in queries:
            c0, w0 = cpu(), time.perf_counter()
            search.search(folder, q, settings, limit=5)
            warm_cpu.append(cpu() - c0)
            warm_wall.append(time.perf_counter() - w0)
        cold = []
        penv = {**os.environ, **env, "HOME": str(root / "home"), "AGD_MEMORY_FILE": str(memory)}
        base = []
        for q in queries[:5]:
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            base.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            out = subprocess.run(
                [
                    sys.executable,
                    str(ROOT / "bin" / "agd-memory"),
                    "search",
                    "--scope",
                    "history",
                    "--json",
                    "--limit",
                    "5",
                    q,
                ],
                env=penv,
                capture_output=True,
                text=True,
                check=True,
            )
            cold.append(time.perf_counter() - t0)
            assert json.loads(out.stdout), out.stderr
        kept = sum(
            len(e.text.encode()) for f in files.session_files(folder) for e in files.read_file(f)
        )
        disk_files = sum(f.stat().st_size for f in files.session_files(folder))
        disk_index = sum(p.stat().st_size for p in (folder / ".cache").glob("*") if p.is_file())
        med = statistics.median
        return {
            "sessions": n,
            "ingest_cpu_ms": med(ingest_cpu) * 1000,
            "ingest_wall_ms": med(ingest_wall) * 1000,
            "index_update_cpu_ms": med(update_cpu) * 1000,
            "first_search_cpu_ms": first[0] * 1000,
            "search_warm_cpu_ms": med(warm_cpu) * 1000,
            "search_warm_wall_ms": med(warm_wall) * 1000,
            "search_cold_wall_ms": (med(cold) - med(base)) * 1000,
            "disk_ratio": (disk_files + disk_index) / kept,
            "files_ratio": disk_files / kept,
        }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, nargs="+", default=[100, 1000, 5000])
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    for n in args.sessions:
        r = measure(n, args.runs)
        print(
            " ".join(f"{k}={v:.1f}" if isinstance(v, float) else f"{k}={v}" for k, v in r.items()),
            flush=True,
        )


if __name__ == "__main__":
    main()
