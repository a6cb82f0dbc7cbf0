"""Two experiments measured and not kept: recall learning from the user's own sessions
which words of the project are weak evidence.

    python3 benchmarks/learned_from_use.py                                # recall as it is
    python3 benchmarks/learned_from_use.py background --t 0.2 --f 0.25
    python3 benchmarks/learned_from_use.py misfires --f 0.0 [--all]

Each stranger's set (`sets.STRANGERS`, plain and keyed) is split in two folds by case
position, and each case runs with what the other fold taught:

- `background`: the other fold's project prompts (positives and in-project negatives) are
  the user's history, as the session history holds it. A prompt word in a share p of
  those prompts has its weight (`Index.surprise`, which a block's share of the prompt is
  computed from) multiplied by 1 - (1 - F) * min(p / T, 1): full weight for a word the
  user never typed, F for one in T of their prompts or more. The project's everyday words
  ("patient", "appointment" in a clinic's project) count for less.
- `misfires`: each in-project negative of the other fold that injected a block (as a model
  reading the session at its end would judge it: the audit found such injections useless
  in 98 or more of 100) teaches that block the prompt words it matched; those words then count F
  in that block's share. `--all`: every block injected, not only the first.

Prints the totals and the score a round decides by, as `strangers.py totals` does
(`benchmarks/README.md`, "tenth pass").
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from strangers import counts_of, summed  # noqa: E402  (benchmarks/ is this script's folder)

from agd_memory.commands.recall import eval_settings  # noqa: E402
from agd_memory.recall import engine  # noqa: E402
from agd_memory.recall.eval import evaluate, sets  # noqa: E402
from agd_memory.recall.front import Front  # noqa: E402
from agd_memory.recall.index import Index  # noqa: E402

EVAL = ROOT / "tests" / "eval"
ARGS = argparse.Namespace(what="none", t=1.0, f=1.0, all=False)
TAUGHT: dict = {}
"""What the other fold taught the current case: word -> share of prompts (background), or
block id -> its misfire words (misfires)."""
_surprise, _share_of = Index.surprise, engine.share_of


def _background_surprise(self: Index, token: str) -> float:
    p = TAUGHT.get(token, 0.0)
    return _surprise(self, token) * (1 - (1 - ARGS.f) * min(p / ARGS.t, 1.0))


def _misfire_share(m, surprise: dict[str, float]) -> float:
    bad = TAUGHT.get(m.doc.id, ())
    num = sum(surprise[w] * (ARGS.f if w in bad else 1.0) for w in m.covered)
    return num / (sum(surprise.values()) or 1.0)


def _prompt_words(prompt: str, layers, settings) -> tuple[set[str], list]:
    front = Front(prompt, layers, settings)
    index = front.index
    if index is None:
        return set(), []
    words, _, matches = engine._entries_matching(front, index)
    return set(words), matches


def _teach(cases: list, files: dict, settings) -> dict:
    """(corpus, fold) -> what that fold teaches."""
    taught: dict = {}
    folds: dict = {}
    for i, c in enumerate(cases):
        if c.get("corpus", "*") == "*":
            continue
        layers, key = files[c["corpus"]], (c["corpus"], i % 2)
        if ARGS.what == "background":
            folds.setdefault(key, []).append(_prompt_words(c["prompt"], layers, settings)[0])
        elif c.get("expect") is None:  # misfires: an in-project negative
            chosen = engine.recall(c["prompt"], layers, settings).chosen
            _, matches = _prompt_words(c["prompt"], layers, settings)
            by_id = {m.doc.id: m for m in matches}
            for s in chosen if ARGS.all else chosen[:1]:
                if s.entry.id in by_id:
                    taught.setdefault(key, {}).setdefault(s.entry.id, set()).update(
                        by_id[s.entry.id].covered
                    )
    for key, prompts in folds.items():
        df = Counter(w for p in prompts for w in p)
        taught[key] = {w: n / len(prompts) for w, n in df.items()}
    return taught


def _counts(job: tuple) -> tuple[int, int, int, int]:
    folder, keyed, args = job
    ARGS.__dict__.update(vars(args))
    settings = eval_settings([])
    path = EVAL / folder / "cases.json"
    cases = evaluate.load_cases(path)
    files = evaluate.corpus_files(path, cases, settings, keyed)
    taught = _teach(cases, files, settings) if args.what != "none" else {}
    if args.what == "background":
        Index.surprise = _background_surprise
    elif args.what == "misfires":
        engine.share_of = _misfire_share
    report = evaluate.Report()
    for i, case in enumerate(cases):
        in_project = case.get("expect") is None and case.get("corpus", "*") != "*"
        names = sorted(files) if case.get("expect") is None and not in_project else [case["corpus"]]
        for name in names:
            TAUGHT.clear()
            TAUGHT.update(taught.get((name, 1 - i % 2), {}))
            result = engine.recall(case["prompt"], files[name], settings)
            report.results.append(evaluate._case_result(case, name, result, in_project))
    Index.surprise, engine.share_of = _surprise, _share_of
    return counts_of(report)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("what", nargs="?", default="none", choices=("none", "background", "misfires"))
    p.add_argument("--t", type=float, default=1.0, help="background: share of prompts for F")
    p.add_argument("--f", type=float, default=1.0, help="weight left to a learned word (1: none)")
    p.add_argument("--all", action="store_true", help="misfires: every block injected")
    args = p.parse_args(argv)
    folders = [f for _, f, _ in sets.STRANGERS]
    jobs = [(f, k, args) for f in folders for k in (None, EVAL / f"{f}-keyed")]
    with Pool(2) as pool:
        rows = pool.map(_counts, jobs, chunksize=1)
    print("\n".join(summed(["plain" if k is None else "keyed" for _, k, _ in jobs], rows)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
