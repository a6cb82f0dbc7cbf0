"""The secret detector on its corpus: caught, missed, false refusals, and time per KB.

    python3 benchmarks/secrets.py [--src DIR] [--runs N] [--verbose]

The corpus is tests/data/secrets/ (templates filled with seeded fake values, see
tests/store/secrets_corpus.py). A secret entry is caught when `find` reports anything in
it, and labelled right when one finding has the kind the entry names; an ordinary text
is a false refusal when `find` reports anything in it. `--src` measures another checkout's
`agd_memory.secrets` (e.g. `/work/baseline/src`) on the same corpus. Time is CPU time of
`find` per KB of text, median (and best) of N runs: over every corpus entry (short texts,
dense with credential words) and over a memory file of ordinary entries
(tests/data/corpora/mem-1000.agd, where the fixed cost per call matters less). `--hostile`
also times one call on each of a few 200 KB inputs built to make a careless regex or loop
go quadratic (a long word before `://`, `pass` repeated, a credential word repeated, ...).
"""

from __future__ import annotations

import argparse
import random
import statistics
import string
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MEMORY = REPO / "tests" / "data" / "corpora" / "mem-1000.agd"
sys.path.insert(0, str(REPO / "tests" / "store"))

import secrets_corpus  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--src", type=Path, default=REPO / "src", help="the src/ folder to measure")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--verbose", action="store_true", help="list every miss and false refusal")
    ap.add_argument("--hostile", action="store_true", help="also time hostile 200 KB inputs")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(args.src.resolve()))
    from agd_memory import secrets

    shapes = secrets_corpus.load("secrets.txt")
    ordinary = secrets_corpus.load("ordinary.txt")
    print(f"detector: {secrets.__file__}")
    for name, (secret_file, ordinary_file) in (
        ("tuned on", ("secrets.txt", "ordinary.txt")),
        ("held out", ("secrets_heldout.txt", "ordinary_heldout.txt")),
    ):
        print(f"{name}:")
        count(secrets, secret_file, ordinary_file, verbose=args.verbose)

    corpus = [e.text for e in shapes + ordinary]
    memory = [MEMORY.read_text(encoding="utf-8")]
    memory_findings = len(secrets.find(memory[0]))

    for name, texts in (
        ("corpus", corpus),
        (f"{MEMORY.name} ({memory_findings} findings)", memory),
    ):
        kb = sum(len(t.encode()) for t in texts) / 1024
        runs = []
        for _ in range(args.runs):
            t0 = time.process_time()
            for t in texts:
                secrets.find(t)
            runs.append((time.process_time() - t0) / kb * 1e6)
        print(
            f"time on {name}: {statistics.median(runs):.1f} µs per KB, best {min(runs):.1f}"
            f" ({kb:.1f} KB, {len(texts)} texts, {args.runs} runs)"
        )
    if args.hostile:
        for name, text in hostile_inputs(200_000).items():
            t0 = time.process_time()
            n = len(secrets.find(text))
            ms = (time.process_time() - t0) * 1000
            print(f"hostile input, {name}: {ms:.0f} ms for {len(text) // 1024} KB ({n} findings)")
    return 0


def count(secrets, secret_file: str, ordinary_file: str, *, verbose: bool) -> None:
    """Print how many secret shapes `find` catches and how many ordinary texts it refuses."""
    shapes = secrets_corpus.load(secret_file)
    ordinary = secrets_corpus.load(ordinary_file)
    caught = labelled = 0
    for e in shapes:
        kinds = [f.kind for f in secrets.find(e.text)]
        caught += bool(kinds)
        labelled += e.kind in kinds
        if verbose and e.kind not in kinds:
            print(f"  missed or mislabelled: {e.title}: {kinds}")
    refused = 0
    for e in ordinary:
        found = secrets.find(e.text)
        refused += bool(found)
        if verbose and found:
            print(
                f"  false refusal: {e.title}: {[(f.kind, e.text[f.start : f.end]) for f in found]}"
            )
    print(
        f"  {secret_file}: {len(shapes)} secret shapes, caught {caught},"
        f" missed {len(shapes) - caught}, kind right {labelled}"
    )
    print(f"  {ordinary_file}: {len(ordinary)} ordinary texts, false refusals {refused}")


def hostile_inputs(n: int) -> dict[str, str]:
    rng = random.Random(1)
    alnum = string.ascii_letters + string.digits
    return {
        "a long word before ' ://'": "a" * n + " ://",
        "'pass' repeated": "pass" * (n // 4),
        "'token ' repeated": "token " * (n // 6),
        "'mysql ' repeated": "mysql " * (n // 6),
        "random base64": "".join(rng.choices(alnum + "+/", k=n)),
        "a GitHub token every 41 characters": " ".join(
            "ghp_" + "".join(rng.choices(alnum, k=36)) for _ in range(n // 41)
        ),
        "BEGIN CERTIFICATE lines, no END": "-----BEGIN CERTIFICATE-----\n" * (n // 28),
    }


if __name__ == "__main__":
    raise SystemExit(main())
