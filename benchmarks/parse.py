#!/usr/bin/env python3
"""Format library benchmark: parse and serialise throughput, AST memory, `agd get` start-up.

    python3 benchmarks/parse.py            # 1k, 10k, 100k blocks (about a minute)
    python3 benchmarks/parse.py --quick    # 1k and 10k only

The corpus is generated deterministically (own LCG, seed 42) with the block
mix of the reference benchmark: h1 5%, h2 12%, h3 15% (followed by 1-3
paragraphs), p 32%, ul 10%, ol 5%, code 10%, quote 8%, ref 3%, opened by a
`@meta` line and closed by a comment. Times are medians of 5 runs after one
warm-up; memory is what the parsed `Document` keeps (tracemalloc, current
after parse minus before) per source byte; `agd get` is the median of 20
subprocess runs of `bin/agd get FILE ID` minus the median of 20 runs of
`python3 -c pass`, measured in the same process run.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from agd import parse, serialize  # noqa: E402

WORDS = [
    "agent",
    "memory",
    "block",
    "parser",
    "token",
    "id",
    "fence",
    "list",
    "quote",
    "code",
    "stable",
    "line",
    "format",
    "document",
    "context",
    "recall",
    "cache",
    "index",
    "graph",
    "edit",
    "canonical",
    "serialise",
    "attribute",
    "value",
    "reference",
    "python",
    "test",
    "hook",
    "session",
    "project",
    "user",
    "feedback",
    "decision",
    "module",
    "library",
]


class Lcg:
    """A 64-bit linear congruential generator: the same corpus on every Python version."""

    def __init__(self, seed: int) -> None:
        self.state = seed

    def next(self, n: int) -> int:
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % 2**64
        return (self.state >> 33) % n


def words(rng: Lcg, lo: int, hi: int) -> str:
    return " ".join(WORDS[rng.next(len(WORDS))] for _ in range(lo + rng.next(hi - lo + 1)))


def sentence(rng: Lcg) -> str:
    text = words(rng, 6, 18)
    roll = rng.next(10)
    if roll == 0:
        text += f" with *{words(rng, 1, 2)}* emphasis"
    elif roll == 1:
        text += f" and `{WORDS[rng.next(len(WORDS))]}()` code"
    return text.capitalize() + "."


def generate(blocks: int, seed: int = 42) -> str:
    """A deterministic AGD document of about `blocks` blocks."""
    rng = Lcg(seed)
    out = [f"@meta blocks={blocks} corpus=true seed={seed}"]
    ids: list[str] = []
    n = 1
    while n < blocks - 1:
        roll = rng.next(100)
        bid = f"b{n}"
        if roll < 5:
            out.append(f"@h1 {words(rng, 2, 5).title()} [#{bid}]")
        elif roll < 17:
            out.append(f"@h2 {words(rng, 2, 5).title()} [#{bid}]")
        elif roll < 32:
            out.append(f"@h3 {words(rng, 2, 5).title()} [#{bid}]")
            for _ in range(1 + rng.next(3)):
                if n < blocks - 2:
                    n += 1
                    out.append(f"@p {sentence(rng)} {sentence(rng)}")
        elif roll < 64:
            out.append(f"@p {sentence(rng)} {sentence(rng)}")
        elif roll < 74:
            items = "\n".join(f"- {words(rng, 2, 8)}" for _ in range(2 + rng.next(4)))
            out.append(f"@ul [#{bid}]\n{items}")
        elif roll < 79:
            items = "\n".join(f"- {words(rng, 2, 8)}" for _ in range(2 + rng.next(4)))
            out.append(f"@ol [#{bid}]\n{items}")
        elif roll < 89:
            body = "\n".join(f"    {words(rng, 2, 6)}()" for _ in range(2 + rng.next(6)))
            out.append(f"@code lang=python [#{bid}]\n~~~\ndef f():\n{body}\n~~~")
        elif roll < 97:
            lines = "\n".join(f"> {sentence(rng)}" for _ in range(1 + rng.next(3)))
            out.append(f"@quote source=agent-{rng.next(9)} [#{bid}]\n{lines}")
        else:
            target = ids[rng.next(len(ids))] if ids else "b1"
            out.append(f"@ref #{target}")
            bid = ""
        if bid and not out[-1].startswith("@ref"):
            ids.append(bid)
        n += 1
    out.append("@! end of generated corpus")
    return "\n\n".join(out) + "\n"


def median_time(func, repeat: int = 5) -> tuple[float, float]:
    """Median (CPU seconds, wall seconds) of `repeat` calls after a warm-up."""
    func()
    cpu, wall = [], []
    for _ in range(repeat):
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        func()
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start_wall)
    return statistics.median(cpu), statistics.median(wall)


def ast_ratio(text: str) -> float:
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    doc = parse(text)
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del doc
    return (after - before) / len(text.encode("utf-8"))


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# Installed packages come with compiled bytecode; let the children write and reuse theirs
# even when the calling shell sets PYTHONDONTWRITEBYTECODE.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def subprocess_ms(cmd: list[str], runs: int = 20) -> tuple[float, float]:
    """Median (CPU ms, wall ms) of `runs` runs of `cmd` after a warm-up (CPU: user + system)."""
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=CHILD_ENV)
    cpu, wall = [], []
    for _ in range(runs):
        start_cpu, start_wall = children_cpu(), time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=CHILD_ENV)
        wall.append(time.perf_counter() - start_wall)
        cpu.append(children_cpu() - start_cpu)
    return statistics.median(cpu) * 1000, statistics.median(wall) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip the 100k-block document")
    args = ap.parse_args()
    sizes = (1_000, 10_000) if args.quick else (1_000, 10_000, 100_000)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    print("MB/s from CPU time (wall-clock MB/s in brackets: lower when the machine is busy)")
    print()
    print("| blocks | bytes | parse MB/s | serialise MB/s | AST bytes / source byte |")
    print("|---:|---:|---:|---:|---:|")
    for size in sizes:
        text = generate(size)
        nbytes = len(text.encode("utf-8"))
        doc = parse(text)
        assert serialize(doc) == text, "the generator must emit canonical text"
        p_cpu, p_wall = median_time(lambda text=text: parse(text))
        s_cpu, s_wall = median_time(lambda doc=doc: serialize(doc))
        ratio = ast_ratio(text)
        print(
            f"| {len(doc.blocks):,} | {nbytes:,} "
            f"| {nbytes / p_cpu / 1e6:.1f} ({nbytes / p_wall / 1e6:.1f}) "
            f"| {nbytes / s_cpu / 1e6:.1f} ({nbytes / s_wall / 1e6:.1f}) | {ratio:.2f} |"
        )

    shared = ROOT / "tests" / "data"
    files = sorted((shared / "corpora").glob("*.agd")) + sorted(
        (shared / "agd-examples").glob("*.agd")
    )
    rows = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        try:
            doc = parse(text)
        except Exception:  # tutorial.agd does not parse under 0.3 rules (reference §6.1)
            continue
        p_cpu, _ = median_time(lambda text=text: parse(text), repeat=3)
        nbytes = len(text.encode("utf-8"))
        rows.append((path.name, len(doc.blocks), nbytes, nbytes / p_cpu / 1e6, ast_ratio(text)))
    if rows:
        print()
        print("| shared data file | blocks | bytes | parse MB/s | AST bytes / source byte |")
        print("|---|---:|---:|---:|---:|")
        for name, blocks, nbytes, mbs, ratio in rows:
            print(f"| {name} | {blocks:,} | {nbytes:,} | {mbs:.1f} | {ratio:.2f} |")

    with tempfile.TemporaryDirectory() as tmp:
        gen = Path(tmp) / "gen-1000.agd"
        text = generate(1_000)
        gen.write_text(text, encoding="utf-8")
        middle = [b.id for b in parse(text).blocks if b.id][len(parse(text).blocks) // 4]
        files = [("generated, 1,000 blocks", gen, middle)]
        mem = shared / "corpora" / "mem-1000.agd"
        if mem.exists():
            doc = parse(mem.read_text(encoding="utf-8"))
            entry = next(b.id for b in doc.blocks if b.id and b.kind.startswith("x-"))
            files.append(("corpora/mem-1000.agd", mem, entry))
        bare_cpu, bare_wall = subprocess_ms([sys.executable, "-c", "pass"])
        print()
        print(f"bare `python3 -c pass`: {bare_cpu:.1f} ms CPU ({bare_wall:.1f} ms wall)")
        print()
        print("| file | bytes | `agd get` ms CPU (wall) | over bare start-up, ms CPU (wall) |")
        print("|---|---:|---:|---:|")
        for label, path, block_id in files:
            cmd = [sys.executable, str(ROOT / "bin" / "agd"), "get", str(path), block_id]
            cpu, wall = subprocess_ms(cmd)
            print(
                f"| {label} | {path.stat().st_size:,} | {cpu:.1f} ({wall:.1f}) "
                f"| {cpu - bare_cpu:.1f} ({wall - bare_wall:.1f}) |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
