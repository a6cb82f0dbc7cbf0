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
    EvalSet("real use, tratta", "tests/eval/realuse-fresh/cases.json", None, True),
    EvalSet("real use, adria", "tests/eval/realuse-blind/cases.json", None, True),
    EvalSet("real use, zampa", "tests/eval/realuse-blind2/cases.json", None, False),
    EvalSet("real use, cantina", "tests/eval/realuse-blind3/cases.json", None, False),
    EvalSet("real use, fleetcare", "tests/eval/realuse-blind4/cases.json", None, False),
    EvalSet("real use, pista", "tests/eval/realuse-blind5/cases.json", None, False),
    EvalSet("real use, mercato", "tests/eval/realuse-blind6/cases.json", None, False),
    EvalSet("real use, aule", "tests/eval/realuse-blind7/cases.json", None, False),
    EvalSet("real use, cantiere", "tests/eval/realuse-blind8/cases.json", None, False),
    EvalSet("real use, referti", "tests/eval/realuse-blind9/cases.json", None, False),
    EvalSet("real use, varco", "tests/eval/realuse-blind10/cases.json", None, False),
    EvalSet("real use, telaio", "tests/eval/realuse-blind11/cases.json", None, False),
    EvalSet("real use, faro", "tests/eval/realuse-blind12/cases.json", None, False),
    EvalSet("real use, orto", "tests/eval/realuse-blind13/cases.json", None, False),
    EvalSet("real use, bilancio", "tests/eval/realuse-blind14/cases.json", None, False),
    EvalSet("real use, rete", "tests/eval/realuse-blind15/cases.json", None, False),
    EvalSet("real use, vigna", "tests/eval/realuse-blind16/cases.json", None, False),
    EvalSet("real use, sirena", "tests/eval/realuse-blind17/cases.json", None, False),
    EvalSet("real use, bussola", "tests/eval/realuse-blind18/cases.json", None, False),
    EvalSet("real use, scaffale", "tests/eval/realuse-blind19/cases.json", None, False),
    EvalSet("real use, rifugio", "tests/eval/realuse-blind20/cases.json", None, False),
    EvalSet("real use, prestito", "tests/eval/realuse-blind21/cases.json", None, False),
    EvalSet("real use, palco", "tests/eval/realuse-blind22/cases.json", None, False),
    EvalSet("real use, fermento", "tests/eval/realuse-blind23/cases.json", None, False),
    EvalSet("real use, molo", "tests/eval/realuse-blind24/cases.json", None, False),
    EvalSet("real use, forno", "tests/eval/realuse-blind25/cases.json", None, False),
    EvalSet("real use, coro", "tests/eval/realuse-blind26/cases.json", None, False),
    EvalSet("real use, serra", "tests/eval/realuse-blind27/cases.json", None, False),
    EvalSet("real use, ciclo", "tests/eval/realuse-blind28/cases.json", None, False),
    EvalSet("real use, lana", "tests/eval/realuse-blind29/cases.json", None, False),
    EvalSet("real use, studio", "tests/eval/realuse-blind30/cases.json", None, False),
    EvalSet("real use, campo", "tests/eval/realuse-blind31/cases.json", None, False),
    EvalSet("real use, argine", "tests/eval/realuse-blind32/cases.json", None, False),
    EvalSet("real use, bottega", "tests/eval/realuse-blind33/cases.json", None, False),
    EvalSet("real use, sentiero", "tests/eval/realuse-blind34/cases.json", None, False),
    EvalSet("real use, mensa", "tests/eval/realuse-blind35/cases.json", None, False),
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
    EvalSet(
        "real use, adria, keyed",
        "tests/eval/realuse-blind/cases.json",
        "tests/eval/realuse-blind-keyed",
        True,
    ),
    EvalSet(
        "real use, zampa, keyed",
        "tests/eval/realuse-blind2/cases.json",
        "tests/eval/realuse-blind2-keyed",
        False,
    ),
    EvalSet(
        "real use, cantina, keyed",
        "tests/eval/realuse-blind3/cases.json",
        "tests/eval/realuse-blind3-keyed",
        False,
    ),
    EvalSet(
        "real use, fleetcare, keyed",
        "tests/eval/realuse-blind4/cases.json",
        "tests/eval/realuse-blind4-keyed",
        False,
    ),
    EvalSet(
        "real use, pista, keyed",
        "tests/eval/realuse-blind5/cases.json",
        "tests/eval/realuse-blind5-keyed",
        False,
    ),
    EvalSet(
        "real use, mercato, keyed",
        "tests/eval/realuse-blind6/cases.json",
        "tests/eval/realuse-blind6-keyed",
        False,
    ),
    EvalSet(
        "real use, aule, keyed",
        "tests/eval/realuse-blind7/cases.json",
        "tests/eval/realuse-blind7-keyed",
        False,
    ),
    EvalSet(
        "real use, cantiere, keyed",
        "tests/eval/realuse-blind8/cases.json",
        "tests/eval/realuse-blind8-keyed",
        False,
    ),
    EvalSet(
        "real use, referti, keyed",
        "tests/eval/realuse-blind9/cases.json",
        "tests/eval/realuse-blind9-keyed",
        False,
    ),
    EvalSet(
        "real use, varco, keyed",
        "tests/eval/realuse-blind10/cases.json",
        "tests/eval/realuse-blind10-keyed",
        False,
    ),
    EvalSet(
        "real use, telaio, keyed",
        "tests/eval/realuse-blind11/cases.json",
        "tests/eval/realuse-blind11-keyed",
        False,
    ),
    EvalSet(
        "real use, faro, keyed",
        "tests/eval/realuse-blind12/cases.json",
        "tests/eval/realuse-blind12-keyed",
        False,
    ),
    EvalSet(
        "real use, orto, keyed",
        "tests/eval/realuse-blind13/cases.json",
        "tests/eval/realuse-blind13-keyed",
        False,
    ),
    EvalSet(
        "real use, bilancio, keyed",
        "tests/eval/realuse-blind14/cases.json",
        "tests/eval/realuse-blind14-keyed",
        False,
    ),
    EvalSet(
        "real use, rete, keyed",
        "tests/eval/realuse-blind15/cases.json",
        "tests/eval/realuse-blind15-keyed",
        False,
    ),
    EvalSet(
        "real use, vigna, keyed",
        "tests/eval/realuse-blind16/cases.json",
        "tests/eval/realuse-blind16-keyed",
        False,
    ),
    EvalSet(
        "real use, sirena, keyed",
        "tests/eval/realuse-blind17/cases.json",
        "tests/eval/realuse-blind17-keyed",
        False,
    ),
    EvalSet(
        "real use, bussola, keyed",
        "tests/eval/realuse-blind18/cases.json",
        "tests/eval/realuse-blind18-keyed",
        False,
    ),
    EvalSet(
        "real use, scaffale, keyed",
        "tests/eval/realuse-blind19/cases.json",
        "tests/eval/realuse-blind19-keyed",
        False,
    ),
    EvalSet(
        "real use, rifugio, keyed",
        "tests/eval/realuse-blind20/cases.json",
        "tests/eval/realuse-blind20-keyed",
        False,
    ),
    EvalSet(
        "real use, prestito, keyed",
        "tests/eval/realuse-blind21/cases.json",
        "tests/eval/realuse-blind21-keyed",
        False,
    ),
    EvalSet(
        "real use, palco, keyed",
        "tests/eval/realuse-blind22/cases.json",
        "tests/eval/realuse-blind22-keyed",
        False,
    ),
    EvalSet(
        "real use, fermento, keyed",
        "tests/eval/realuse-blind23/cases.json",
        "tests/eval/realuse-blind23-keyed",
        False,
    ),
    EvalSet(
        "real use, molo, keyed",
        "tests/eval/realuse-blind24/cases.json",
        "tests/eval/realuse-blind24-keyed",
        False,
    ),
    EvalSet(
        "real use, forno, keyed",
        "tests/eval/realuse-blind25/cases.json",
        "tests/eval/realuse-blind25-keyed",
        False,
    ),
    EvalSet(
        "real use, coro, keyed",
        "tests/eval/realuse-blind26/cases.json",
        "tests/eval/realuse-blind26-keyed",
        False,
    ),
    EvalSet(
        "real use, serra, keyed",
        "tests/eval/realuse-blind27/cases.json",
        "tests/eval/realuse-blind27-keyed",
        False,
    ),
    EvalSet(
        "real use, ciclo, keyed",
        "tests/eval/realuse-blind28/cases.json",
        "tests/eval/realuse-blind28-keyed",
        False,
    ),
    EvalSet(
        "real use, lana, keyed",
        "tests/eval/realuse-blind29/cases.json",
        "tests/eval/realuse-blind29-keyed",
        False,
    ),
    EvalSet(
        "real use, studio, keyed",
        "tests/eval/realuse-blind30/cases.json",
        "tests/eval/realuse-blind30-keyed",
        False,
    ),
    EvalSet(
        "real use, campo, keyed",
        "tests/eval/realuse-blind31/cases.json",
        "tests/eval/realuse-blind31-keyed",
        False,
    ),
    EvalSet(
        "real use, argine, keyed",
        "tests/eval/realuse-blind32/cases.json",
        "tests/eval/realuse-blind32-keyed",
        False,
    ),
    EvalSet(
        "real use, bottega, keyed",
        "tests/eval/realuse-blind33/cases.json",
        "tests/eval/realuse-blind33-keyed",
        False,
    ),
    EvalSet(
        "real use, sentiero, keyed",
        "tests/eval/realuse-blind34/cases.json",
        "tests/eval/realuse-blind34-keyed",
        False,
    ),
    EvalSet(
        "real use, mensa, keyed",
        "tests/eval/realuse-blind35/cases.json",
        "tests/eval/realuse-blind35-keyed",
        False,
    ),
    EvalSet(
        "real use, tratta, keyed",
        "tests/eval/realuse-fresh/cases.json",
        "tests/eval/realuse-fresh-keyed",
        True,
    ),
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
