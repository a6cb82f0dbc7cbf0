"""The secret detector on its corpus: caught, missed, false refusals, and time per KB.

    python3 benchmarks/secrets.py [--src DIR] [--runs N] [--verbose]

The corpus is tests/data/secrets/ (templates filled with seeded fake values, see
tests/store/secrets_corpus.py). A secret entry is caught when `find` reports anything in
it, and labelled right when one finding has the kind the entry names; an ordinary text
is a false refusal when `find` reports anything in it. `--src` measures another checkout's
`agd_memory.secrets` (e.g. `/work/baseline/src`) on the same corpus. Time is the median
over N runs of `find` on every entry, per KB of text (CPU time of this process).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "store"))

import secrets_corpus  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--src", type=Path, default=REPO / "src", help="the src/ folder to measure")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--verbose", action="store_true", help="list every miss and false refusal")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(args.src.resolve()))
    from agd_memory import secrets

    shapes = secrets_corpus.load("secrets.txt")
    ordinary = secrets_corpus.load("ordinary.txt")
    caught = labelled = 0
    for e in shapes:
        kinds = [f.kind for f in secrets.find(e.text)]
        caught += bool(kinds)
        labelled += e.kind in kinds
        if args.verbose and e.kind not in kinds:
            print(f"  missed or mislabelled: {e.title}: {kinds}")
    refused = 0
    for e in ordinary:
        found = secrets.find(e.text)
        refused += bool(found)
        if args.verbose and found:
            print(
                f"  false refusal: {e.title}: {[(f.kind, e.text[f.start : f.end]) for f in found]}"
            )

    texts = [e.text for e in shapes + ordinary]
    kb = sum(len(t.encode()) for t in texts) / 1024
    runs = []
    for _ in range(args.runs):
        t0 = time.process_time()
        for t in texts:
            secrets.find(t)
        runs.append(time.process_time() - t0)
    per_kb = statistics.median(runs) / kb * 1e6

    print(f"detector: {secrets.__file__}")
    print(
        f"secret shapes: {len(shapes)}, caught {caught}, missed {len(shapes) - caught}, kind right {labelled}"
    )
    print(f"ordinary texts: {len(ordinary)}, false refusals {refused}")
    print(f"time: {per_kb:.1f} µs per KB ({kb:.1f} KB, median of {args.runs} runs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
