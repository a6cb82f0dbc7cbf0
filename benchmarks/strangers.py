"""The strangers' sets (`sets.STRANGERS`, tests/eval/STRANGERS.md): totals for a decision,
and the tables of tests/eval/test_recall_realuse.py regenerated after a recall change.

    python3 benchmarks/strangers.py totals [NAME|FOLDER ...] [--keyed-dir DIR]
    python3 benchmarks/strangers.py floors     # the FLOORS dict, measured now
    python3 benchmarks/strangers.py behind     # the BEHIND_ON_RECALL dict, measured now

`totals` runs our recall on each set, plain and keyed, and prints hit@1, recall@3, off-topic
and in-project false injections per run, the sums, and the score a round decides by
(hit@1 + recall@3 - both false injections). A set is a name of `sets.STRANGERS` or a folder
under tests/eval/ not registered yet (`realuse-blind64`); with `--keyed-dir`, the keyed
copies are read from DIR/<folder> instead of tests/eval/<folder>-keyed (another sample of
keys). With no set, every stranger's set. Two processes, one per core.
"""

from __future__ import annotations

import argparse
import sys
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from agd_memory.commands.recall import eval_settings  # noqa: E402
from agd_memory.recall.eval import evaluate, sets  # noqa: E402

EVAL = ROOT / "tests" / "eval"


def counts_of(report: evaluate.Report) -> tuple[int, int, int, int]:
    """hit@1, recall@3, off-topic and in-project false injections of one run."""
    r = sets.row(report.summary())
    return r["hit1"], r["recall3"], r["off_topic"][0], r["in_project"][0]


def _counts(folder: str, keyed: Path | None) -> tuple[int, int, int, int]:
    return counts_of(evaluate.run(EVAL / folder / "cases.json", eval_settings([]), override=keyed))


def _run(job: tuple[str, Path | None]) -> tuple[int, int, int, int]:
    return _counts(*job)


def _folder(name: str) -> str:
    folders = {n: f for n, f, _ in sets.STRANGERS}
    folder = folders.get(name, name)
    if not (EVAL / folder / "cases.json").is_file():
        raise SystemExit(
            f"strangers: no set {name!r}; give a name of sets.STRANGERS or a folder of tests/eval"
        )
    return folder


def totals(names: list[str], keyed_dir: Path | None) -> str:
    folders = [_folder(n) for n in names] or [f for _, f, _ in sets.STRANGERS]
    jobs = []
    for f in folders:
        jobs.append((f, None))
        jobs.append((f, (keyed_dir / f) if keyed_dir else EVAL / f"{f}-keyed"))
    with Pool(2) as pool:
        rows = pool.map(_run, jobs, chunksize=1)
    kinds = ["keyed" if keyed else "plain" for _, keyed in jobs]
    lines = [
        f"{f} {kind}: " + " · ".join(map(str, c))
        for (f, _), kind, c in zip(jobs, kinds, rows, strict=True)
    ]
    return "\n".join(lines + summed(kinds, rows))


def summed(kinds: list[str], rows: list[tuple[int, int, int, int]]) -> list[str]:
    """The rows summed per kind (plain, keyed), each with its score, then the total score a
    round decides by (hit@1 + recall@3 - both false injections)."""
    sums = {"plain": [0, 0, 0, 0], "keyed": [0, 0, 0, 0]}
    for kind, counts in zip(kinds, rows, strict=True):
        sums[kind] = [a + b for a, b in zip(sums[kind], counts, strict=True)]
    lines = [
        f"{k}: {h} · {r} · {off} · {inp}, score {h + r - off - inp}"
        for k, (h, r, off, inp) in sums.items()
    ]
    return lines + [f"score: {sum(h + r - off - inp for h, r, off, inp in sums.values())}"]


def floors() -> str:
    jobs = [(f, k) for _, f, _ in sets.STRANGERS for k in (None, EVAL / f"{f}-keyed")]
    with Pool(2) as pool:
        rows = pool.map(_run, jobs, chunksize=1)
    out = ["FLOORS = {"]
    for i, (name, _, _) in enumerate(sets.STRANGERS):
        out.append(f'    "{name}": ({rows[2 * i]}, {rows[2 * i + 1]}),')
    return "\n".join(out + ["}"])


def _compare(s: sets.EvalSet) -> dict:
    return sets.compare(eval_settings, sets=(s,))[0]


def behind() -> str:
    """Our plain runs whose recall@3 is not above the earlier plugin's, or whose false
    injections are not fewer, with their numbers, as the test's strict xfails give them."""
    with Pool(2) as pool:
        rows = {r["set"]: r for r in pool.map(_compare, sets.SETS, chunksize=1)}
    folders = {n: f for n, f, _ in sets.STRANGERS}
    out = ["BEHIND_ON_RECALL = {"]
    for name, r in rows.items():
        ours, base = r["ours"], r["baseline"]
        ours_fi = ours["off_topic"][0] + ours["in_project"][0]
        base_fi = base["off_topic"][0] + base["in_project"][0]
        if ours["recall3"] > base["recall3"] and ours_fi < base_fi:
            continue
        short = name.removeprefix("real use, ")
        n = ours["positives"]
        than = (
            "the same as the earlier plugin's"
            if ours["recall3"] == base["recall3"]
            else f"against the earlier plugin's {base['recall3']}/{n}"
        )
        keyed = rows.get(f"{name}, keyed", {}).get("ours", {}).get("recall3", "?")
        how = "run blind" if short == "pista" else "run once to decide a change"
        out += [
            f'    "{name}": "{short} (tests/eval/{folders.get(short, "?")}, written by a stranger, {how}): "',
            f'    "recall@3 {ours["recall3"]}/{n}{"," if ours["recall3"] == base["recall3"] else ""} {than} '
            f'(with {ours_fi} false injections against {base_fi}; with keys ours is "',
            f'    "{keyed}/{n}) (benchmarks/README.md)",',
        ]
    return "\n".join(out + ["}"])


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("what", choices=("totals", "floors", "behind"))
    p.add_argument(
        "sets", nargs="*", help="for totals: names of sets.STRANGERS or tests/eval folders"
    )
    p.add_argument("--keyed-dir", type=Path, help="for totals: read keyed copies from DIR/<folder>")
    args = p.parse_args(argv)
    if args.what == "totals":
        print(totals(args.sets, args.keyed_dir))
    elif args.sets or args.keyed_dir:
        p.error(f"{args.what} takes no sets: it measures every stranger's set")
    else:
        print(floors() if args.what == "floors" else behind())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
