"""Recall quality and latency: the numbers in benchmarks/README.md, "Recall quality and latency".

    python3 benchmarks/recall.py [--cases PATH] [--holdout PATH] [--blocks 10000] [--runs 15]

1. Every evaluation set of the repository (`recall.eval.sets`: dev, held-out, fresh,
   their keyed memories, and the real-use dev and held-out sets), our recall against the
   earlier plugin's algorithm (the reference, langs en,it): the table
   `agd-memory eval --all` prints.
2. Ranked search recall@5 on the positives of both, side by side with a plain BM25
   (one field, id + desc + keys + body, the reference tokenizer, no stopwords, k1=1.2,
   b=0.75) over the same blocks, without and with keys.
3. Recall latency in a fresh process, as the hook runs it, on a synthetic memory of
   N blocks (each with 12 keys) with the store's disk cache warm, minus a bare
   `python3 -c pass`.
"""

from __future__ import annotations

import argparse
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

from agd_memory.commands.recall import eval_settings  # noqa: E402
from agd_memory.recall.eval import evaluate, sets  # noqa: E402
from agd_memory.store import MemoryFile  # noqa: E402

DEFAULT_CASES = ROOT / "tests" / "data" / "recall-dev" / "cases.json"
HOLDOUT_CASES = ROOT / "tests" / "eval" / "holdout-cases.json"
KEYED = ROOT / "tests" / "data" / "recall-dev-keyed"
FRESH_CASES = ROOT / "tests" / "eval" / "fresh" / "cases.json"
FRESH_KEYED = ROOT / "tests" / "eval" / "fresh-keyed"


def quality() -> None:
    print("## every set: our recall and the earlier plugin's (agd-memory eval --all)\n")
    print(sets.markdown(sets.compare(eval_settings)))


def search_quality(cases_path: Path, label: str, override: Path | None = None) -> None:
    keyed = ", memories with keys" if override else ""
    print(f"\n## ranked search recall@5 on the {label} positives{keyed} (no gates)")
    ranked, plain, total = evaluate.search_recall(cases_path, eval_settings([]), override=override)
    print(f"plain BM25      recall@5 {plain}/{total} ({plain / total:.0%})")
    print(f"ranked search   recall@5 {ranked}/{total} ({ranked / total:.0%})")


WORDS = [
    f"{a}{b}"
    for a in (
        "deploy",
        "backup",
        "invoice",
        "server",
        "client",
        "report",
        "token",
        "build",
        "cache",
        "queue",
    )
    for b in ("", "er", "ing", "s", "ed", "able", "ment", "ist", "ize", "ion")
] + [f"w{i:04d}" for i in range(2000)]


def synthetic_memory(path: Path, blocks: int, seed: int = 7) -> None:
    rnd = random.Random(seed)
    parts = [
        "@meta format=agd version=1 [#meta]\n",
        "@h1 Project memory [#root]\n",
        "@h2 Project [#h-project]\n",
    ]
    for i in range(blocks):
        desc = " ".join(rnd.choice(WORDS) for _ in range(6))
        body = "\n".join(" ".join(rnd.choice(WORDS) for _ in range(12)) for _ in range(4))
        # two rare words per block (each in ~13 blocks): what `cooc` expands
        body += f"\nrare{rnd.randrange(1500)} rare{rnd.randrange(1500)}"
        keys = ", ".join(" ".join(rnd.choice(WORDS) for _ in range(1 + j % 2)) for j in range(12))
        parts.append(
            f'@x-project desc="{desc}" keys="{keys}" created="2026-01-01" '
            f'updated="2026-0{1 + i % 9}-01" [#block-{i}]\n~~~\n{body}\n~~~\n'
        )
    path.write_text("\n".join(parts), encoding="utf-8")


HOOK_SNIPPET = """
import sys
sys.path.insert(0, {src!r})
from agd_memory.settings import Settings
from agd_memory.recall import recall
from agd_memory.store import MemoryFile
s = Settings.load()
f = [MemoryFile({path!r}, layer="project", settings=s)]
r = recall({prompt!r}, f, s)
print(len(r.render()))
"""
PROMPTS = {
    "common words": "how do we deploy the invoice server backup with the token cache?",
    "rare words (cooc fires)": "how do rare17 and rare230 relate to the deploy of rare999?",
}


_DATA_DIR: list[str] = []


def _env() -> dict[str, str]:
    # an installed package has its bytecode compiled; measure that, not compiling sources
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if _DATA_DIR:  # caches of this run only, so the cold case can remove them
        env["CLAUDE_PLUGIN_DATA"] = _DATA_DIR[0]
    return env


def _median_ms(cmd: list[str], runs: int) -> tuple[float, float]:
    """Median wall time and median CPU time (user + system) of `cmd`, in ms. CPU time is
    the steadier figure on a shared machine: it does not count waiting for a core."""
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, env=_env())
        walls.append((time.perf_counter() - t0) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return statistics.median(walls), statistics.median(cpus)


def latency(blocks: int, runs: int) -> None:
    print(
        f"\n## recall latency, fresh process, {blocks} blocks, warm disk cache ({runs} runs, median)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "memory.agd"
        synthetic_memory(path, blocks)
        _DATA_DIR[:] = [str(Path(tmp) / "data")]
        src = str(ROOT / "src")
        cmds = {
            label: [sys.executable, "-c", HOOK_SNIPPET.format(src=src, path=str(path), prompt=p)]
            for label, p in PROMPTS.items()
        }
        env_cmd = cmds["common words"]
        # warm the disk caches (store and recall index) and write the bytecode
        subprocess.run(env_cmd, check=True, capture_output=True, env=_env())
        bare, bare_cpu = _median_ms([sys.executable, "-c", "pass"], runs)
        for label, cmd in cmds.items():
            full, full_cpu = _median_ms(cmd, runs)
            print(
                f"{label}: wall: bare interpreter {bare:.0f} ms, recall process {full:.0f} ms,"
                f" over bare start {full - bare:.0f} ms"
            )
            print(
                f"{label}: cpu:  bare interpreter {bare_cpu:.0f} ms, recall process"
                f" {full_cpu:.0f} ms, over bare start {full_cpu - bare_cpu:.0f} ms"
            )
        colds = []
        for _ in range(3):
            for f in (Path(tmp) / "data" / "cache").glob("recall-*.cache"):
                f.unlink()
            colds.append(_median_ms(env_cmd, 1)[0])
        print(
            f"first prompt after the file changed (recall index rebuilt, store cache warm):"
            f" {statistics.median(colds):.0f} ms wall"
        )
        _DATA_DIR.clear()
        sys.path.insert(0, str(ROOT / "src"))
        from agd_memory.recall import engine
        from agd_memory.settings import Settings

        s = Settings.load()
        files = [MemoryFile(path, layer="project", settings=s)]
        engine.recall("deploy invoice server", files, s)
        for label, prompt in PROMPTS.items():
            t0 = time.perf_counter()
            for _ in range(20):
                engine.recall(prompt, files, s)
            per = (time.perf_counter() - t0) / 20 * 1000
            print(f"in-process, index cached, {label}: {per:.1f} ms per prompt")


def main() -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--cases", type=Path, default=DEFAULT_CASES)
    p.add_argument("--holdout", type=Path, default=HOLDOUT_CASES)
    p.add_argument("--blocks", type=int, default=10_000)
    p.add_argument("--runs", type=int, default=15)
    p.add_argument("--skip-latency", action="store_true")
    args = p.parse_args()
    if args.cases.is_file():
        quality()
        for path, label, keyed in (
            (args.cases, "dev set", KEYED),
            (args.holdout, "held-out check", KEYED),
            (FRESH_CASES, "fresh blind set", FRESH_KEYED),
        ):
            search_quality(path, label)
            search_quality(path, label, keyed)
            print()
    else:
        print(f"dev set not found at {args.cases}; skipping the quality sections")
    if not args.skip_latency:
        latency(args.blocks, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
