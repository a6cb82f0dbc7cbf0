"""Do the in-project "false injections" inject a rule or fact that applies to the task?
benchmarks/README.md, "Issue 26, ninth pass: the in-project negatives audited".

    python3 benchmarks/inproject_audit.py export [SET ...] > items.json
    python3 benchmarks/inproject_audit.py view items.json > to-judge.json
    python3 benchmarks/inproject_audit.py summary items.json JUDGED.json [JUDGED.json ...]

The strangers' in-project negatives are prompts their writer meant no entry to help with.
`export` runs recall (plain and keyed memories) on those of the named sets of
`sets.STRANGERS` (default: the eight of the ninth pass) and writes, for every negative that
got an injection, the project's description from the set's README, the prompt and the text
of each block injected, de-duplicated across plain and keyed runs; and, as a control, every
third positive whose expected entry came first (keyed), which a judge should find applies.
`view` shuffles them (a fixed seed) and keeps only what a judge reads. A judge that has not
seen recall's code or the cases (a model or a person) answers, for each item, whether the
first block and whether any block applies to the request: a rule the developer must follow
while doing it, or a fact they need for it (`{"judgements": [{"item", "first", "any"}]}`,
each "applies" or "no"). `summary` counts the injections that apply, plain and keyed, for
each judge, and the controls they found applying.
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from agd_memory.commands.recall import eval_settings  # noqa: E402
from agd_memory.recall import engine  # noqa: E402
from agd_memory.recall.eval import evaluate, sets  # noqa: E402

NINTH_PASS = (
    "canile", "funivia", "acquedotto", "autoscuola", "ascensori", "catasto", "gelateria", "parcheggi",
)  # fmt: skip


def project_of(folder: Path) -> str:
    """The README's "The project." paragraph."""
    text = (folder / "README.md").read_text(encoding="utf-8")
    m = re.search(r"\*\*The project\.\*\*(.*?)(?:\n\n|$)", text, re.S)
    return " ".join(m.group(1).split()) if m else ""


def export(names: list[str]) -> dict:
    folders = {n: f for n, f, _ in sets.STRANGERS}
    unknown = [n for n in names if n not in folders]
    if unknown:
        raise SystemExit(f"inproject_audit: unknown sets {unknown}; see sets.STRANGERS")
    settings = eval_settings([])
    items: dict[tuple, dict] = {}
    for name in names:
        folder = ROOT / "tests" / "eval" / folders[name]
        cases_path = folder / "cases.json"
        cases = evaluate.load_cases(cases_path)
        for keyed in (False, True):
            override = folder.parent / f"{folder.name}-keyed" if keyed else None
            files = evaluate.corpus_files(cases_path, cases, settings, override)
            positives = 0
            for case in cases:
                expect = case.get("expect")
                if case.get("corpus", "*") == "*":
                    continue
                if expect is not None:
                    positives += 1
                    if not keyed or positives % 3:
                        continue
                r = engine.recall(case["prompt"], files[case["corpus"]], settings)
                if not r.chosen or (expect is not None and str(r.chosen[0].entry.id) != expect):
                    continue
                key = (name, case["prompt"], tuple(str(s.entry.id) for s in r.chosen))
                item = items.setdefault(
                    key,
                    {
                        "item": len(items) + 1,
                        "set": name,
                        "control": expect is not None,
                        "project": project_of(folder),
                        "prompt": case["prompt"],
                        "injected": [s.text for s in r.chosen],
                        "runs": [],
                    },
                )
                item["runs"].append("keyed" if keyed else "plain")
    return {"items": list(items.values())}


def view(items: dict) -> dict:
    """What a judge reads: the items shuffled, without their set, runs or kind."""
    shown = [{k: i[k] for k in ("item", "project", "prompt", "injected")} for i in items["items"]]
    random.Random(26).shuffle(shown)
    return {"items": shown}


def summary(items: dict, judged: dict) -> str:
    verdict = {j["item"]: j for j in judged["judgements"]}
    missing = [i["item"] for i in items["items"] if i["item"] not in verdict]
    if missing:
        raise SystemExit(f"inproject_audit: no judgement for items {missing[:10]}")
    lines = []
    groups = [
        (run, [i for i in items["items"] if run in i["runs"] and not i["control"]])
        for run in ("plain", "keyed")
    ]
    groups.append(("control", [i for i in items["items"] if i["control"]]))
    for label, mine in groups:
        first = sum(verdict[i["item"]]["first"] == "applies" for i in mine)
        any_ = sum(verdict[i["item"]]["any"] == "applies" for i in mine)
        what = (
            "positives' first blocks (controls)" if label == "control" else "in-project injections"
        )
        lines.append(
            f"{label}: {len(mine)} {what}; the first block applies in {first}, some block in {any_}"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if argv[:1] == ["export"]:
        json.dump(export(argv[1:] or list(NINTH_PASS)), sys.stdout, indent=1, ensure_ascii=False)
        return 0
    if argv[:1] == ["view"] and len(argv) == 2:
        json.dump(view(_read(argv[1])), sys.stdout, indent=1, ensure_ascii=False)
        return 0
    if argv[:1] == ["summary"] and len(argv) >= 3:
        items = _read(argv[1])
        for path in argv[2:]:
            print(f"{path}:\n{summary(items, _read(path))}")
        return 0
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


def _read(path: str) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
