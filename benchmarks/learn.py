"""What keys learned from use change: benchmarks/README.md, "Issue 26: learned keys".

    python3 benchmarks/learn.py [--vetting strict|topical|loose|all]

Simulated use of `distill/learn.py` on copies of the evaluation memories (the repository's
files are never written):

1. Every positive of a *teaching* set is one session: the user typed its prompt, and the
   model then fetched the expected entry (`agd_memory_get`). `learn.missed` (the worker's
   own step, with the real recall) keeps it when recall did not offer that entry; the
   sessions run in the set's order, so a later prompt sees the keys an earlier one taught.
2. The model's vetting (`learn_prompt.md`) is replaced by a deterministic stand-in, since
   no model runs here. `strict`: the request's words that are no stopword, request verb or
   question-frame word of en/it, are not in the entry's id, desc or keys already, and
   appear in no other entry of the memory (a word another entry holds names another
   topic), in the order typed. `topical`: the request's words (same lists out, not in
   the id, desc or keys) that the entry's body holds: the user named what the entry is
   about. `loose`: the first test only (no word lists' words, not in the id, desc or
   keys), the noise of a model that vets nothing. Either answer then goes through `learn.learn`
   unchanged (the store's key rules, words the user typed only, at most 4 new keys per
   entry and session, written first by `MemoryFile.set_keys`).
3. The *test* set (other prompts over the same memories, written independently of the
   teaching set) is run before and after, with our recall and with the earlier plugin's
   algorithm. The teaching set itself is re-run too: that row is a replay (the prompts
   the keys were learned from), an upper bound, not a quality figure.

What this does not simulate: a model's judgement (it would drop a word of another topic
in a multi-part prompt, and may choose two-word phrases), lookups the model makes for its
own reasons on prompts no entry answers (the vetting is meant to answer those with no keys;
`tests/distill/test_learn.py` covers that with a fake model), review mode.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from agd_memory.claude import headless  # noqa: E402
from agd_memory.commands.recall import eval_settings  # noqa: E402
from agd_memory.distill import learn  # noqa: E402
from agd_memory.recall.eval import evaluate, sets  # noqa: E402
from agd_memory.recall.eval.features import DEFAULT, REFERENCE  # noqa: E402
from agd_memory.recall.text import builtin_stopwords  # noqa: E402

PAIRS = (
    # (label, teaching set, test set): both files over the same memories
    ("real use", "tests/eval/realuse/dev-cases.json", "tests/eval/realuse/holdout-cases.json"),
    (
        "real use, reversed",
        "tests/eval/realuse/holdout-cases.json",
        "tests/eval/realuse/dev-cases.json",
    ),
    ("dev -> held-out", "tests/data/recall-dev/cases.json", "tests/eval/holdout-cases.json"),
)
LANGS = ("en", "it")
VETTINGS = ("strict", "topical", "loose")
STOP = frozenset().union(
    *(
        builtin_stopwords(lang, request_verbs=True, verbs=True, frame=True, folded=True)
        for lang in LANGS
    )
)


def stage(tmp: Path, *cases: str) -> None:
    """Copy the cases files, their corpora and the `global.agd` beside each into `tmp`,
    at the same paths relative to the repository root."""
    for rel in cases:
        src = ROOT / rel
        wanted = {rel}
        for case in evaluate.load_cases(src):
            if case.get("corpus", "*") == "*":
                continue
            corpus = (src.parent / case["corpus"]).resolve()
            wanted.add(str(corpus.relative_to(ROOT)))
            beside = corpus.parent / evaluate.GLOBAL_NAME
            if beside.is_file():
                wanted.add(str(beside.relative_to(ROOT)))
        for name in wanted:
            dest = tmp / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            if not dest.exists():
                shutil.copyfile(ROOT / name, dest)


def stand_in(lesson: learn.Lesson, vetting: str) -> list[str]:
    """The keys the stand-in for the model's vetting answers for one lesson."""
    e = lesson.entry
    own = set(learn.words_of(" ".join([e.id.replace("-", " "), e.desc or ""])))
    own |= set(learn.words_of(str(e.attrs.get("keys") or "")))
    body = set(learn.words_of(e.body or ""))
    others: set[str] = set()
    if vetting == "strict":
        for x in lesson.mf.entries():
            if x.is_memory and x.id != e.id:
                text = " ".join([x.id.replace("-", " "), x.desc or "", x.body or ""])
                others |= set(learn.words_of(text + " " + str(x.attrs.get("keys") or "")))
    out: list[str] = []
    for prompt in lesson.prompts:
        for w in learn.words_of(prompt):
            if len(w) < 3 or w.isdigit() or w in STOP or w in own or w in others:
                continue
            if vetting == "topical" and w not in body:
                continue
            if w not in out:
                out.append(w)
    return out[: learn.MAX_NEW_KEYS]


def teach(cases_path: Path, settings: Any, vetting: str) -> dict[str, list[str]]:
    """Every positive of `cases_path` as a session whose model fetched the expected entry;
    returns id -> keys learned."""
    cases = evaluate.load_cases(cases_path)
    files = evaluate.corpus_files(cases_path, cases, settings, None)
    taught: dict[str, list[str]] = {}
    real_ask = headless.ask
    lessons_now: list[learn.Lesson] = []

    def ask(*_args: Any, **_kw: Any) -> Any:  # the model's vetting, deterministically
        items = [{"id": ls.entry.id, "keys": stand_in(ls, vetting)} for ls in lessons_now]
        return type("Answer", (), {"items": items})()

    headless.ask = ask
    try:
        for case in cases:
            if case.get("expect") is None:
                continue
            lookup = learn.Lookup(case["prompt"], [case["expect"]])
            lessons_now[:] = learn.missed([lookup], files[case["corpus"]], settings)
            if lessons_now:
                for block_id, new in learn.learn(lessons_now, settings, lambda _m: None).items():
                    taught.setdefault(block_id, []).extend(new)
    finally:
        headless.ask = real_ask
    return taught


def measure(cases_path: Path, settings: Any, base_settings: Any) -> dict[str, Any]:
    ours = evaluate.run(cases_path, settings, features=DEFAULT)
    base = evaluate.run(cases_path, base_settings, features=REFERENCE)
    return {"ours": ours, "baseline": base}


def line(name: str, label: str, report: Any, only: set[str] | None = None) -> str:
    r = sets.row(report.summary())
    pos = [x for x in report.positives if only is None or x.expect in only]
    n = len(pos)
    hit1 = sum(x.hit1 for x in pos)
    hit3 = sum(x.hit3 for x in pos)
    if only is not None:  # the negatives are the whole set's: shown on its own row
        return f"| {name} | {label} | {sets._pct(hit1, n)} | {sets._pct(hit3, n)} | | | |"
    return (
        f"| {name} | {label} | {sets._pct(hit1, n)} | {sets._pct(hit3, n)}"
        f" | {sets._fi(r['off_topic'])} | {sets._fi(r['in_project'])} | {r['tokens_median']:g} |"
    )


def changed(before: Any, after: Any) -> list[str]:
    """The test set's cases whose outcome the learned keys changed."""
    out = []
    for b, a in zip(before.results, after.results, strict=True):
        if (b.hit1, b.hit3, b.false_injection) != (a.hit1, a.hit3, a.false_injection):
            what = f"#{a.expect}" if a.expect else "negative"
            out.append(f"- {what}: {b.injected[:3]} -> {a.injected[:3]}: {a.prompt[:90]}")
    return out


def run_pair(label: str, teach_rel: str, test_rel: str, vetting: str) -> list[str]:
    settings = eval_settings([])
    base_settings = eval_settings(list(sets.BASELINE_SETTINGS))
    out: list[str] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        stage(tmp, teach_rel, test_rel)
        before_test = measure(tmp / test_rel, settings, base_settings)
        before_teach = measure(tmp / teach_rel, settings, base_settings)
        taught = teach(tmp / teach_rel, settings, vetting)
        after_test = measure(tmp / test_rel, settings, base_settings)
        after_teach = measure(tmp / teach_rel, settings, base_settings)
    sessions = sum(len(v) for v in taught.values())
    out.append(
        f"\n### {label}: taught by {teach_rel}, tested on {test_rel} (vetting: {vetting})\n"
        f"\n{len(taught)} entries learned {sessions} keys: "
        + "; ".join(f"#{k} + {', '.join(v)}" for k, v in sorted(taught.items()))
        + "\n"
    )
    out.append(
        "| set | recall, memory | hit@1 | recall@3 | false inj. off-topic"
        " | false inj. in-project | median tokens |"
    )
    out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    learned = set(taught)
    for name, before, after, only in (
        ("test set", before_test, after_test, None),
        ("test set, positives of the entries taught", before_test, after_test, learned),
        ("teaching set (replay: the prompts taught)", before_teach, after_teach, None),
    ):
        out.append(line(name, "ours, before", before["ours"], only))
        out.append(line(name, "ours, learned keys", after["ours"], only))
        # the earlier plugin's algorithm reads no keys: its numbers stay as they were
        assert sets.row(after["baseline"].summary()) == sets.row(before["baseline"].summary())
        out.append(line(name, "baseline (reads no keys)", before["baseline"], only))
    moved = changed(before_test["ours"], after_test["ours"])
    out.append("\nTest cases the learned keys changed (ours):" if moved else "")
    out += moved
    return out


def main() -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--vetting", choices=(*VETTINGS, "all"), default="all")
    args = p.parse_args()
    vettings = VETTINGS if args.vetting == "all" else (args.vetting,)
    for vetting in vettings:
        for label, teach_rel, test_rel in PAIRS:
            print("\n".join(run_pair(label, teach_rel, test_rel, vetting)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
