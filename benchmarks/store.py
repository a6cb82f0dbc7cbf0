"""Store latency: save on a 1,000-block memory, load with a warm and a cold cache.

    python3 benchmarks/store.py              # markdown table on stdout
    python3 benchmarks/store.py --runs 50    # more runs per cell
    python3 benchmarks/store.py --json

1. Save: `MemoryFile.save` in process on a copy of `mem-1000.agd` (1,000 memory
   blocks): half new ids, half updates of existing ones, each the whole transaction
   (lock, read, change, splice the changed blocks in, re-parse check, atomic write with fsync,
   cache refresh). Target: median <= 30 ms.
2. Load: `MemoryFile.entries()` as a fresh hook process sees it (the in-process memo
   is cleared before every run): *warm* = the on-disk cache matches the file,
   *cold* = no cache (parse, then write the cache). On `mem-1000.agd` and on a
   generated 10,000-block memory (ten renamed copies of the 1,000 blocks). Target:
   warm load of 10,000 blocks <= 15 ms.
3. Load in a real new process: the same warm load timed inside a fresh interpreter
   (import of the store included separately), to show nothing is hidden by the memo.

Each cell is the median of N runs after warm-up runs; p90 is shown beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
CORPORA = Path(os.environ.get("AGD_BENCH_CORPORA", REPO / "tests" / "data" / "corpora"))

from agd import parse, serialize  # noqa: E402
from agd.model import Block  # noqa: E402
from agd_memory import diskcache as cache  # noqa: E402
from agd_memory import store  # noqa: E402
from agd_memory.settings import Settings  # noqa: E402


def make_10k(source: Path, target: Path) -> None:
    """Ten copies of every `x-*` block of `source`, ids and refs suffixed per copy."""
    doc = parse(source.read_text(encoding="utf-8"))
    memory = [b for b in doc.blocks if b.kind.startswith("x-")]
    out = [b for b in doc.blocks if not b.kind.startswith("x-")]
    for k in range(10):
        for b in memory:
            attrs = dict(b.attrs)
            if isinstance(attrs.get("refs"), str):
                attrs["refs"] = ",".join(
                    f"{r.strip()}-c{k}" for r in attrs["refs"].replace(" ", ",").split(",") if r
                )
            out.append(Block(b.kind, b.content_type, b.value, attrs, f"{b.id}-c{k}"))
    doc.blocks = out
    target.write_text(serialize(doc), encoding="utf-8")


def timed(fn, runs: int, warmup: int = 3) -> list[float]:
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def summary(samples: list[float]) -> dict[str, float]:
    s = sorted(samples)
    return {
        "median_ms": round(statistics.median(s), 2),
        "p90_ms": round(s[int(0.9 * (len(s) - 1))], 2),
        "runs": len(s),
    }


def bench_save(work: Path, settings: Settings, runs: int) -> dict[str, float]:
    path = work / "save" / "memory.agd"
    path.parent.mkdir()
    shutil.copyfile(CORPORA / "mem-1000.agd", path)
    mf = store.MemoryFile(path, settings=settings)
    existing = [e.id for e in mf.entries() if e.is_memory]
    counter = iter(range(10**9))

    def one() -> None:
        n = next(counter)
        if n % 2:
            mf.save("x-project", existing[n % len(existing)], f"updated body {n}", desc=f"upd {n}")
        else:
            mf.save("x-project", f"bench-new-{n}", f"a new fact {n}, see #{existing[0]}")

    return summary(timed(one, runs))


def bench_load(path: Path, settings: Settings, runs: int, *, warm: bool) -> dict[str, float]:
    mf = store.MemoryFile(path, settings=settings)
    mf.entries()  # make sure a cache exists for the warm case

    def one() -> None:
        cache.clear()
        if not warm:
            key = cache.file_key(path)
            cache.entries_path(mf.cache_dir, key).unlink(missing_ok=True)
        n = len(mf.entries())
        assert n > 900

    return summary(timed(one, runs))


FRESH = """
import sys, time
t0 = time.perf_counter()
sys.path.insert(0, {src!r})
from agd_memory import store
from agd_memory.settings import Settings
t1 = time.perf_counter()
mf = store.MemoryFile({path!r}, settings=Settings.load({{"CLAUDE_PLUGIN_DATA": {data!r}}}))
n = len(mf.entries())
t2 = time.perf_counter()
print((t1 - t0) * 1000, (t2 - t1) * 1000, n)
"""


def bench_fresh(path: Path, settings: Settings, runs: int) -> dict[str, dict[str, float]]:
    store.MemoryFile(path, settings=settings).entries()
    code = FRESH.format(src=str(REPO / "src"), path=str(path), data=str(settings.data_dir))
    imports, loads = [], []
    for i in range(runs + 2):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        imp, load, _ = out.stdout.split()
        if i >= 2:
            imports.append(float(imp))
            loads.append(float(load))
    return {"import": summary(imports), "warm_load": summary(loads)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="agd-store-bench-") as tmp:
        work = Path(tmp)
        settings = Settings.load({"CLAUDE_PLUGIN_DATA": str(work / "data")})
        k1 = work / "mem-1000.agd"
        shutil.copyfile(CORPORA / "mem-1000.agd", k1)
        k10 = work / "mem-10000.agd"
        make_10k(k1, k10)
        results = {
            "save_1k": bench_save(work, settings, args.runs),
            "load_1k_warm": bench_load(k1, settings, args.runs, warm=True),
            "load_1k_cold": bench_load(k1, settings, max(5, args.runs // 3), warm=False),
            "load_10k_warm": bench_load(k10, settings, args.runs, warm=True),
            "load_10k_cold": bench_load(k10, settings, max(5, args.runs // 3), warm=False),
            "fresh_process_10k": bench_fresh(k10, settings, max(5, args.runs // 3)),
        }
        results["blocks"] = {
            "1k": sum(1 for e in store.MemoryFile(k1, settings=settings).entries() if e.is_memory),
            "10k": sum(
                1 for e in store.MemoryFile(k10, settings=settings).entries() if e.is_memory
            ),
            "10k_bytes": k10.stat().st_size,
        }

    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    r = results
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} cores; {args.runs} runs per cell\n")
    print("| measure | median | p90 | target |")
    print("| --- | --- | --- | --- |")
    rows = [
        ("save, 1,000-block memory (in process)", r["save_1k"], "<= 30 ms"),
        ("load 1,000 blocks, warm cache", r["load_1k_warm"], ""),
        ("load 1,000 blocks, cold (parse + write cache)", r["load_1k_cold"], ""),
        ("load 10,000 blocks, warm cache", r["load_10k_warm"], "<= 15 ms"),
        ("load 10,000 blocks, cold (parse + write cache)", r["load_10k_cold"], ""),
        ("fresh process: import store + settings", r["fresh_process_10k"]["import"], ""),
        ("fresh process: warm load of 10,000 blocks", r["fresh_process_10k"]["warm_load"], ""),
    ]
    for name, s, target in rows:
        print(f"| {name} | {s['median_ms']:.1f} ms | {s['p90_ms']:.1f} ms | {target} |")
    b = r["blocks"]
    print(
        f"\n1k file: {b['1k']} memory blocks; 10k file: {b['10k']} blocks, {b['10k_bytes']:,} bytes"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
