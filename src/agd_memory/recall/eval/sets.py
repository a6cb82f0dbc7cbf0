"""Every evaluation set of the repository, and ours against the earlier plugin's algorithm
on each of them: `agd-memory eval --all` and `benchmarks/recall.py` print this table.

The baseline is the earlier plugin's plain recall (agd-memory-plugin §5.4: keyword
overlap with IDF, the anchor rule, the ratio and absolute floors; `features.REFERENCE`)
with the languages its own evaluation used (`AGD_RECALL_LANGS=en,it`). The sets live in
the repository's `tests/` folder, so this runs from a checkout, not from an installed
package.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...errors import UserError
from . import evaluate
from .features import DEFAULT, REFERENCE


class EvalSet(namedtuple("EvalSet", "name cases corpora tuned")):
    """`cases`: the cases file, relative to the repository root; `corpora`: a folder of the
    same memories rewritten (with keys), or None; `tuned`: recall was tuned on it, so its
    numbers are optimistic (the others are held out)."""

    __slots__ = ()


STRANGERS = (
    ("tratta", "realuse-fresh", True),
    ("adria", "realuse-blind", True),
    ("zampa", "realuse-blind2", False),
    ("cantina", "realuse-blind3", False),
    ("fleetcare", "realuse-blind4", False),
    ("pista", "realuse-blind5", False),
    ("mercato", "realuse-blind6", False),
    ("aule", "realuse-blind7", False),
    ("cantiere", "realuse-blind8", False),
    ("referti", "realuse-blind9", False),
    ("varco", "realuse-blind10", False),
    ("telaio", "realuse-blind11", False),
    ("faro", "realuse-blind12", False),
    ("orto", "realuse-blind13", False),
    ("bilancio", "realuse-blind14", False),
    ("rete", "realuse-blind15", False),
    ("vigna", "realuse-blind16", False),
    ("sirena", "realuse-blind17", False),
    ("bussola", "realuse-blind18", False),
    ("scaffale", "realuse-blind19", False),
    ("rifugio", "realuse-blind20", False),
    ("prestito", "realuse-blind21", False),
    ("palco", "realuse-blind22", False),
    ("fermento", "realuse-blind23", False),
    ("molo", "realuse-blind24", False),
    ("forno", "realuse-blind25", False),
    ("coro", "realuse-blind26", False),
    ("serra", "realuse-blind27", False),
    ("ciclo", "realuse-blind28", False),
    ("lana", "realuse-blind29", False),
    ("studio", "realuse-blind30", False),
    ("campo", "realuse-blind31", False),
    ("argine", "realuse-blind32", False),
    ("bottega", "realuse-blind33", False),
    ("sentiero", "realuse-blind34", False),
    ("mensa", "realuse-blind35", False),
    ("ponte", "realuse-blind36", False),
    ("pozzo", "realuse-blind37", False),
    ("nave", "realuse-blind38", False),
    ("officina", "realuse-blind39", False),
    ("stalla", "realuse-blind40", False),
    ("museo", "realuse-blind41", False),
    ("condominio", "realuse-blind42", False),
    ("volo", "realuse-blind43", False),
    ("frantoio", "realuse-blind44", False),
    ("palestra", "realuse-blind45", False),
    ("radio", "realuse-blind46", False),
    ("porto", "realuse-blind47", False),
    ("tipografia", "realuse-blind48", False),
    ("cinema", "realuse-blind49", False),
    ("farmacia", "realuse-blind50", False),
    ("autobus", "realuse-blind51", False),
    ("vivaio", "realuse-blind52", False),
    ("lavanderia", "realuse-blind53", False),
    ("biblio", "realuse-blind54", False),
    ("rifiuti", "realuse-blind55", False),
    ("canile", "realuse-blind56", False),
    ("funivia", "realuse-blind57", False),
    ("acquedotto", "realuse-blind58", False),
    ("autoscuola", "realuse-blind59", False),
    ("ascensori", "realuse-blind60", False),
    ("catasto", "realuse-blind61", False),
    ("gelateria", "realuse-blind62", False),
    ("parcheggi", "realuse-blind63", False),
    ("vendemmia", "realuse-blind64", False),
    ("ambulatorio", "realuse-blind65", False),
    ("refettorio", "realuse-blind66", False),
    ("rimessaggio", "realuse-blind67", False),
)
"""The real-use sets written by strangers to recall (`tests/eval/STRANGERS.md` gives the
recipe, each folder's README what was done and when it was run): name,
folder under `tests/eval/` (its keyed copy is `<folder>-keyed`), and whether recall was
tuned on it."""


def _stranger(name: str, folder: str, tuned: bool, *, keyed: bool) -> EvalSet:
    cases = f"tests/eval/{folder}/cases.json"
    if keyed:
        return EvalSet(f"real use, {name}, keyed", cases, f"tests/eval/{folder}-keyed", tuned)
    return EvalSet(f"real use, {name}", cases, None, tuned)


SETS = (
    EvalSet("dev", "tests/data/recall-dev/cases.json", None, True),
    EvalSet("dev, keyed", "tests/data/recall-dev/cases.json", "tests/data/recall-dev-keyed", True),
    EvalSet("held-out", "tests/eval/holdout-cases.json", None, False),
    EvalSet(
        "held-out, keyed", "tests/eval/holdout-cases.json", "tests/data/recall-dev-keyed", False
    ),
    EvalSet("fresh", "tests/eval/fresh/cases.json", None, False),
    EvalSet("fresh, keyed", "tests/eval/fresh/cases.json", "tests/eval/fresh-keyed", False),
    EvalSet("real use, dev", "tests/eval/realuse/dev-cases.json", None, True),
    EvalSet("real use, held-out", "tests/eval/realuse/holdout-cases.json", None, False),
    *(_stranger(*s, keyed=False) for s in STRANGERS),
    EvalSet(
        "real use, dev, keyed",
        "tests/eval/realuse/dev-cases.json",
        "tests/eval/realuse-keyed",
        True,
    ),
    EvalSet(
        "real use, held-out, keyed",
        "tests/eval/realuse/holdout-cases.json",
        "tests/eval/realuse-keyed",
        False,
    ),
    *(_stranger(*s, keyed=True) for s in STRANGERS),
)

BASELINE_SETTINGS = ("AGD_RECALL_LANGS=en,it",)
"""The earlier plugin measured its recall with both of its stopword lists on."""

ROOT = Path(__file__).resolve().parents[4]
"""The checkout holding `tests/` (src/agd_memory/recall/eval/ is four levels down)."""


def row(summary: dict[str, Any]) -> dict[str, Any]:
    """The numbers of one set and one algorithm, from `Report.summary()`."""
    pos = summary["positives"]
    return {
        "positives": pos["cases"],
        "hit1": pos["hit1"],
        "recall3": pos["recall3"],
        "tokens_median": pos["tokens_median"],
        "off_topic": (
            summary["negatives_off_topic"]["false_injections"],
            summary["negatives_off_topic"]["runs"],
        ),
        "in_project": (
            summary["negatives_in_project"]["false_injections"],
            summary["negatives_in_project"]["runs"],
        ),
    }


def compare(
    settings_for: Callable[[list[str]], Any], root: Path = ROOT, sets: tuple = SETS
) -> list[dict[str, Any]]:
    """Each set run with our recall and with the baseline: one dict per set, holding the
    set's name, whether it was tuned on, and `ours` and `baseline` rows (`row`)."""
    out = []
    for s in sets:
        cases = root / s.cases
        if not cases.is_file():
            raise UserError(
                f"{cases}: evaluation set not found; run `agd-memory eval --all` from a checkout"
                " of agd-memory (the sets live in its tests/ folder)"
            )
        corpora = root / s.corpora if s.corpora else None
        ours = evaluate.run(cases, settings_for([]), features=DEFAULT, override=corpora)
        base = evaluate.run(
            cases, settings_for(list(BASELINE_SETTINGS)), features=REFERENCE, override=corpora
        )
        out.append(
            {
                "set": s.name,
                "tuned": s.tuned,
                "ours": row(ours.summary()),
                "baseline": row(base.summary()),
            }
        )
    return out


def _pct(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "–"


def _fi(pair: tuple[int, int]) -> str:
    part, whole = pair
    return f"{part}/{whole} ({100 * part / whole:.1f}%)" if whole else "–"


def markdown(rows: list[dict[str, Any]]) -> str:
    """The comparison as the Markdown table of benchmarks/README.md."""
    lines = [
        "| set | recall | hit@1 | recall@3 | false inj. off-topic | false inj. in-project"
        " | median tokens |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        name = r["set"] + (" (tuned on)" if r["tuned"] else "")
        for label in ("ours", "baseline"):
            x = r[label]
            n = x["positives"]
            lines.append(
                f"| {name} | {label} | {_pct(x['hit1'], n)} | {_pct(x['recall3'], n)}"
                f" | {_fi(x['off_topic'])} | {_fi(x['in_project'])} | {x['tokens_median']:g} |"
            )
    return "\n".join(lines)
