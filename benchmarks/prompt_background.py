"""An experiment measured and not kept: the user's other prompts in the project as a
background, so the project's everyday words ("patient", "appointment" in a clinic's
project) count for less as evidence that a block applies.

    python3 benchmarks/prompt_background.py                     # recall as it is
    python3 benchmarks/prompt_background.py --t 0.2 --f 0.25    # with the background

Each stranger's set (`sets.STRANGERS`, plain and keyed) is split in two folds by case
position; a case is run with the other fold's project prompts (positives and in-project
negatives) as the user's history, as the session history would hold them. A prompt word
in a share p of those prompts has its weight (`Index.surprise`, what a block's share of
the prompt is computed from) multiplied by 1 - (1 - F) * min(p / T, 1): full weight for a
word the user never typed, F for one in T of their prompts or more. Prints the totals and
the score a round decides by, as `strangers.py totals` does (`benchmarks/README.md`, tenth
pass, has the grid).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from agd_memory.commands.recall import eval_settings  # noqa: E402
from agd_memory.recall import engine  # noqa: E402
from agd_memory.recall.eval import evaluate, sets  # noqa: E402
from agd_memory.recall.front import Front  # noqa: E402
from agd_memory.recall.index import Index  # noqa: E402

EVAL = ROOT / "tests" / "eval"
BACKGROUND: dict[str, float] = {}
"""The current case's history: word -> share of the history's prompts holding it."""
T, F = 1.0, 1.0
_surprise = Index.surprise


def _discounted(self: Index, token: str) -> float:
    return _surprise(self, token) * (1 - (1 - F) * min(BACKGROUND.get(token, 0.0) / T, 1.0))


def _words(prompt: str, layers, settings) -> set[str]:
    front = Front(prompt, layers, settings)
    index = front.index
    return set(front.concepts(index, front.words)) if index is not None else set()


def _counts(job: tuple[str, Path | None, float, float]) -> tuple[int, int, int, int]:
    global T, F
    folder, keyed, T, F = job
    Index.surprise = _discounted
    settings = eval_settings([])
    path = EVAL / folder / "cases.json"
    cases = evaluate.load_cases(path)
    files = evaluate.corpus_files(path, cases, settings, keyed)
    folds: dict[tuple[str, int], list[set[str]]] = {}
    for i, c in enumerate(cases):
        if c.get("corpus", "*") != "*":
            folds.setdefault((c["corpus"], i % 2), []).append(
                _words(c["prompt"], files[c["corpus"]], settings)
            )
    shares = {}
    for key, prompts in folds.items():
        df = Counter(w for p in prompts for w in p)
        shares[key] = {w: n / len(prompts) for w, n in df.items()}
    report = evaluate.Report()
    for i, case in enumerate(cases):
        in_project = case.get("expect") is None and case.get("corpus", "*") != "*"
        names = sorted(files) if case.get("expect") is None and not in_project else [case["corpus"]]
        for name in names:
            BACKGROUND.clear()
            BACKGROUND.update(shares.get((name, 1 - i % 2), {}))
            result = engine.recall(case["prompt"], files[name], settings)
            report.results.append(evaluate._case_result(case, name, result, in_project))
    r = sets.row(report.summary())
    return r["hit1"], r["recall3"], r["off_topic"][0], r["in_project"][0]


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--t", type=float, default=1.0, help="share of prompts for the full discount")
    p.add_argument("--f", type=float, default=1.0, help="weight left at that share (1: none)")
    args = p.parse_args(argv)
    folders = [f for _, f, _ in sets.STRANGERS]
    jobs = [(f, k, args.t, args.f) for f in folders for k in (None, EVAL / f"{f}-keyed")]
    with Pool(2) as pool:
        rows = pool.map(_counts, jobs, chunksize=1)
    score = 0
    for kind, part in (("plain", rows[0::2]), ("keyed", rows[1::2])):
        h, r, off, inp = (sum(x) for x in zip(*part, strict=True))
        score += h + r - off - inp
        print(f"{kind}: {h} · {r} · {off} · {inp}, score {h + r - off - inp}")
    print(f"score: {score}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
