"""Tokens auto-recall spends when a block already injected in the session is named, not
repeated (`claude/injected.py`), on sessions made of the strangers' sets' prompts.

    python3 benchmarks/recall_once.py              # sessions of 10 prompts
    python3 benchmarks/recall_once.py --size 20

A set's project prompts (its positives and in-project negatives, keyed memories) are cut
into sessions of `--size` prompts, once in the order their writer wrote them and once
shuffled (seed 0): real sessions stay on a topic longer than a shuffle does, and writers
often asked about one entry several times in a row, so the two bracket what a user sees.
Each prompt runs through `engine.recall` and the hook's own record (`injected.earlier`,
`injected.remember`, in a temporary data folder), and its text is rendered as the hook
renders it. Tokens are the hook's estimate (`policy.estimate_tokens`). The time the
record costs a prompt (`earlier` and `remember`: one bounded read, one append) is timed
around those two calls.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from agd_memory.claude import injected  # noqa: E402
from agd_memory.commands.recall import eval_settings  # noqa: E402
from agd_memory.recall import engine, policy  # noqa: E402
from agd_memory.recall.eval import evaluate, sets  # noqa: E402

EVAL = ROOT / "tests" / "eval"


def sessions(size: int, shuffled: bool):
    """(layer files, prompts) for each session of `size` prompts of every stranger's set."""
    settings = eval_settings([])
    for _, folder, _ in sets.STRANGERS:
        path = EVAL / folder / "cases.json"
        cases = evaluate.load_cases(path)
        files = evaluate.corpus_files(path, cases, settings, EVAL / f"{folder}-keyed")
        for corpus, layers in files.items():
            prompts = [c["prompt"] for c in cases if c.get("corpus") == corpus]
            if shuffled:
                random.Random(0).shuffle(prompts)
            for i in range(0, len(prompts), size):
                yield settings, layers, prompts[i : i + size]


def measure(size: int, shuffled: bool) -> dict:
    every, once, repeated, injecting, wall, cpu = [], [], 0, 0, [], []
    with tempfile.TemporaryDirectory() as data:
        for n, (settings, layers, prompts) in enumerate(sessions(size, shuffled)):
            settings = settings.replace(data_dir=Path(data))
            session = f"s{n}"
            for prompt in prompts:
                result = engine.recall(prompt, layers, settings)
                if not result.chosen:
                    continue
                injecting += 1
                t0, c0 = time.perf_counter(), time.process_time()
                held = injected.earlier(settings, session, result.chosen)
                fresh = [c for i, c in enumerate(result.chosen) if i not in held]
                injected.remember(settings, session, fresh)
                wall.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
                repeated += bool(held)
                every.append(policy.estimate_tokens(len(result.render())))
                once.append(policy.estimate_tokens(len(result.render(earlier=held))))
    return {
        "prompts injecting": injecting,
        "with a block already injected": repeated,
        "tokens, every block every time": sum(every),
        "tokens, named once injected": sum(once),
        "median per injecting prompt": (statistics.median(every), statistics.median(once)),
        "record read and append, median wall / CPU ms": (
            round(statistics.median(wall) * 1000, 3),
            round(statistics.median(cpu) * 1000, 3),
        ),
    }


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=10, help="prompts per session (default 10)")
    args = p.parse_args(argv)
    for shuffled in (False, True):
        r = measure(args.size, shuffled)
        saved = 1 - r["tokens, named once injected"] / r["tokens, every block every time"]
        print(f"sessions of {args.size} prompts, {'shuffled' if shuffled else 'as written'}:")
        for k, v in r.items():
            print(f"  {k}: {v}")
        print(f"  saved: {saved:.0%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
