"""The real-use recall set (`realuse/`): prompts of the shapes real users type, over
memories written as the distiller writes them, with in-project negatives.

Two project memories (`quarry/`, an English Rust backup tool; `biblioteche/`, an Italian
library-network web app), each with its user's global layer. The positives are long
(15-40 words typical) and shaped like real questions: several questions in one prompt,
"how did X evolve", a topic named in one or two words among ordinary ones, everyday
words for a technical entry, the other language. The in-project negatives are task
prompts on the same project that no entry answers ("add a --limit option to quarry
list"). `dev-cases.json` is what recall was tuned on; `holdout-cases.json` was written
at the same time and not looked at case by case while tuning (realuse/README.md).
`realuse-keyed/` holds the same memories with the keys `agd-memory keys` writes (a model
playing `claude -p`, shown only the keys prompt and the entries). Every set is also
compared with the earlier plugin's algorithm here: ours must be ahead on recall@3 and on
false injections, on every set.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest
from eval_helpers import summary

from agd_memory.commands.recall import eval_settings
from agd_memory.recall.eval import evaluate, sets

HERE = Path(__file__).resolve().parent
DEV = HERE / "realuse" / "dev-cases.json"
HOLDOUT = HERE / "realuse" / "holdout-cases.json"
KEYED = HERE / "realuse-keyed"


def assert_realuse_floors(s: dict, hit1: int, recall3: int, off: int, inside: int) -> None:
    """The counts measured when recall last changed, and the issue's token ceiling."""
    assert s["positives"]["hit1"] >= hit1
    assert s["positives"]["recall3"] >= recall3
    assert s["negatives_off_topic"]["false_injections"] <= off
    assert s["negatives_in_project"]["false_injections"] <= inside
    assert s["positives"]["tokens_median"] <= 400


@pytest.mark.parametrize("path", [DEV, HOLDOUT], ids=["dev", "holdout"])
def test_realuse_cases_have_the_shapes_and_negatives_the_issue_asks_for(path: Path) -> None:
    cases = evaluate.load_cases(path)
    pos = [c for c in cases if c["expect"]]
    neg = [c for c in cases if c["expect"] is None]
    in_project = [c for c in neg if c["corpus"] != "*"]
    assert len(pos) >= 50 and len(in_project) >= 50 and len(neg) - len(in_project) >= 10
    assert {c["lang"] for c in pos} == {"en", "it"} == {c["lang"] for c in in_project}
    for shape in ("multi-part", "evolve", "everyday", "cross-lingual", "global"):
        assert sum(shape in c["tags"] for c in pos) >= 3, shape
    words = sorted(len(c["prompt"].split()) for c in pos)
    assert 15 <= words[len(words) // 2] <= 40  # the median prompt is a real question's length


def test_dev_and_holdout_share_no_prompt() -> None:
    dev = {c["prompt"] for c in evaluate.load_cases(DEV)}
    held = {c["prompt"] for c in evaluate.load_cases(HOLDOUT)}
    assert not dev & held


def test_in_project_negatives_run_on_their_own_project_only() -> None:
    report = evaluate.run(DEV, eval_settings([]))
    runs: dict[str, list[str]] = {}
    for r in report.negatives:
        runs.setdefault(r.prompt, []).append(r.corpus)
    for case in evaluate.load_cases(DEV):
        if case["expect"] is None:
            want = sorted({c["corpus"] for c in evaluate.load_cases(DEV) if c["expect"]})
            assert sorted(runs[case["prompt"]]) == (
                want if case["corpus"] == "*" else [case["corpus"]]
            )
    s = report.summary()
    assert s["negatives_in_project"]["runs"] + s["negatives_off_topic"]["runs"] == len(runs) + sum(
        len(v) - 1 for v in runs.values()
    )


def test_realuse_does_not_regress() -> None:
    # measured since a block matching a few words none of which names it needs a one-word share:
    # dev 47/62, 50/62, FI off-topic 0/30, in-project 5/55; held-out 43/56, 48/56, 2/30, 7/55
    # (benchmarks/README.md, issue 26's fifth to ninth passes, has the numbers before it)
    for path, hit1, recall3, off, inside in ((DEV, 47, 50, 0, 5), (HOLDOUT, 43, 48, 2, 7)):
        assert_realuse_floors(summary(path), hit1, recall3, off, inside)


def test_keyed_copies_hold_the_same_entries_each_with_keys() -> None:
    settings = eval_settings([])
    for name in ("quarry/en-quarry.agd", "biblioteche/it-biblioteche.agd"):
        plain = evaluate.corpus_files(DEV, [{"corpus": name, "expect": "x"}], settings, None)
        keyed = evaluate.corpus_files(DEV, [{"corpus": name, "expect": "x"}], settings, KEYED)
        # each project's copy is read with its own user's global layer, not another's
        folder = KEYED / Path(name).parent
        assert [f.path for f in keyed[name]] == [KEYED / name, folder / "global.agd"]
        for before, after in zip(plain[name], keyed[name], strict=True):
            old, new = before.entries(), after.entries()
            assert [(e.id, e.desc, e.body) for e in old] == [(e.id, e.desc, e.body) for e in new]
            for e in new:  # `agd-memory keys` never sends a superseded entry
                if e.kind.startswith("x-"):
                    assert e.attrs.get("keys") or e.status == "superseded", e.id


def test_realuse_keyed_does_not_regress() -> None:
    # measured with each language's own keys, on every entry with fewer than 12 (after
    # any it had), since a block matching a few words none of which names it needs a one-word
    # share: dev 54/62, 56/62, FI off-topic 1/30, in-project 12/55; held-out 46/56, 54/56, 5/30,
    # 10/55 (the held-out set lost one recall@3 to it, 55 before; benchmarks/README.md, issue
    # 26's fifth to ninth passes, has the numbers before it)
    for path, hit1, recall3, off, inside in ((DEV, 54, 56, 1, 12), (HOLDOUT, 46, 54, 5, 10)):
        assert_realuse_floors(summary(path, override=KEYED), hit1, recall3, off, inside)


FLOORS = {
    "tratta": ((27, 29, 0, 25), (32, 37, 0, 25)),
    "adria": ((28, 29, 0, 15), (31, 33, 0, 17)),
    "zampa": ((26, 28, 1, 17), (32, 38, 1, 19)),
    "cantina": ((21, 25, 1, 7), (28, 30, 1, 11)),
    "fleetcare": ((31, 33, 0, 11), (35, 37, 0, 19)),
    "pista": ((26, 27, 0, 3), (31, 34, 0, 6)),
    "mercato": ((22, 27, 1, 6), (28, 30, 1, 9)),
    "aule": ((19, 24, 0, 11), (23, 29, 1, 11)),
    "cantiere": ((22, 26, 1, 8), (31, 36, 1, 13)),
    "referti": ((23, 25, 0, 11), (29, 31, 0, 10)),
    "varco": ((23, 28, 0, 5), (32, 35, 0, 8)),
    "telaio": ((27, 30, 2, 12), (32, 37, 2, 13)),
    "faro": ((23, 26, 0, 4), (31, 31, 0, 10)),
    "orto": ((25, 26, 0, 10), (31, 32, 0, 10)),
    "bilancio": ((27, 28, 0, 13), (28, 35, 0, 14)),
    "rete": ((30, 32, 0, 3), (33, 36, 1, 9)),
    "vigna": ((26, 29, 0, 6), (34, 38, 0, 9)),
    "sirena": ((26, 28, 2, 5), (35, 36, 1, 5)),
    "bussola": ((24, 29, 0, 3), (33, 37, 2, 6)),
    "scaffale": ((28, 31, 0, 5), (33, 37, 0, 9)),
    "rifugio": ((20, 21, 1, 4), (32, 34, 1, 9)),
    "prestito": ((13, 21, 0, 4), (29, 34, 1, 8)),
    "palco": ((22, 24, 1, 1), (30, 32, 1, 4)),
    "fermento": ((26, 26, 0, 3), (35, 38, 0, 4)),
    "molo": ((22, 25, 1, 7), (33, 36, 1, 8)),
    "forno": ((24, 26, 0, 7), (31, 33, 0, 10)),
    "coro": ((23, 25, 0, 1), (32, 37, 0, 5)),
    "serra": ((26, 29, 1, 4), (35, 38, 1, 9)),
    "ciclo": ((19, 22, 1, 1), (33, 35, 1, 3)),
    "lana": ((22, 23, 0, 5), (29, 30, 0, 8)),
    "studio": ((25, 26, 0, 3), (34, 38, 0, 3)),
    "campo": ((23, 27, 0, 8), (31, 33, 1, 8)),
    "argine": ((25, 26, 0, 3), (34, 35, 0, 6)),
    "bottega": ((26, 27, 0, 4), (35, 39, 0, 6)),
    "sentiero": ((26, 28, 0, 6), (34, 35, 2, 9)),
    "mensa": ((21, 23, 0, 7), (28, 33, 0, 13)),
    "ponte": ((26, 29, 1, 5), (29, 31, 1, 6)),
    "pozzo": ((22, 25, 0, 6), (30, 35, 0, 9)),
    "nave": ((25, 28, 0, 4), (30, 33, 1, 5)),
    "officina": ((28, 30, 1, 1), (37, 40, 1, 2)),
    "stalla": ((26, 28, 0, 2), (32, 33, 0, 5)),
    "museo": ((17, 17, 0, 0), (25, 30, 1, 1)),
    "condominio": ((25, 29, 0, 4), (30, 37, 0, 6)),
    "volo": ((23, 26, 0, 1), (33, 38, 0, 2)),
    "frantoio": ((28, 29, 0, 3), (34, 37, 0, 3)),
    "palestra": ((20, 21, 1, 9), (30, 31, 1, 14)),
    "radio": ((29, 30, 0, 8), (31, 34, 1, 11)),
    "porto": ((25, 28, 0, 4), (33, 37, 1, 6)),
    "tipografia": ((18, 23, 0, 6), (27, 34, 1, 6)),
    "cinema": ((29, 31, 0, 2), (34, 38, 0, 3)),
    "farmacia": ((22, 23, 1, 5), (29, 32, 0, 8)),
    "autobus": ((22, 26, 0, 3), (33, 38, 1, 5)),
    "vivaio": ((26, 27, 0, 2), (31, 33, 0, 5)),
    "lavanderia": ((23, 27, 0, 3), (30, 35, 0, 4)),
    "biblio": ((26, 26, 1, 5), (28, 32, 1, 3)),
    "rifiuti": ((27, 27, 0, 3), (31, 33, 1, 8)),
    "canile": ((25, 30, 2, 6), (29, 34, 3, 6)),
    "funivia": ((28, 32, 0, 3), (33, 37, 0, 6)),
    "acquedotto": ((18, 24, 0, 3), (24, 30, 0, 3)),
    "autoscuola": ((24, 27, 0, 7), (32, 37, 1, 7)),
    "ascensori": ((23, 24, 2, 8), (30, 31, 2, 11)),
    "catasto": ((20, 21, 0, 4), (29, 32, 1, 4)),
    "gelateria": ((19, 22, 0, 10), (29, 33, 0, 12)),
    "parcheggi": ((19, 26, 1, 4), (28, 32, 0, 6)),
    "vendemmia": ((26, 29, 0, 0), (29, 34, 0, 0)),
    "ambulatorio": ((27, 31, 1, 5), (37, 38, 1, 8)),
    "refettorio": ((20, 25, 0, 3), (32, 35, 0, 6)),
    "rimessaggio": ((22, 28, 1, 5), (28, 32, 2, 6)),
}
"""The sets written by strangers to recall (`sets.STRANGERS`; each folder's README says how,
and which were read; benchmarks/README.md, issue 26's fourth to seventh passes, has their
history): the hit@1, recall@3, off-topic and in-project false injections measured at the end of
the ninth pass's third round, plain and with the keys `agd-memory keys` writes (the folder's `-keyed`
copy, keyed in each of the user's languages)."""


@pytest.mark.parametrize("name", FLOORS)
def test_the_sets_written_by_strangers_do_not_regress(name: str) -> None:
    folder = {n: f for n, f, _ in sets.STRANGERS}[name]
    plain, keyed = FLOORS[name]
    cases = HERE / folder / "cases.json"
    assert_realuse_floors(summary(cases), *plain)
    assert_realuse_floors(summary(cases, override=HERE / f"{folder}-keyed"), *keyed)


@lru_cache(maxsize=1)
def comparison() -> dict[str, dict]:
    """Every set run with ours and with the earlier plugin's algorithm, by set name."""
    return {r["set"]: r for r in sets.compare(eval_settings)}


BEHIND_ON_RECALL = {
    "real use, pista": "pista (tests/eval/realuse-blind5, written by a stranger, run blind): "
    "recall@3 27/44 against the earlier plugin's 29/44 (with 3 false injections against 37; with keys ours is "
    "34/44) (benchmarks/README.md)",
    "real use, cantiere": "cantiere (tests/eval/realuse-blind8, written by a stranger, run once to decide a change): "
    "recall@3 26/44 against the earlier plugin's 27/44 (with 9 false injections against 41; with keys ours is "
    "36/44) (benchmarks/README.md)",
    "real use, faro": "faro (tests/eval/realuse-blind12, written by a stranger, run once to decide a change): "
    "recall@3 26/44, the same as the earlier plugin's (with 4 false injections against 39; with keys ours is "
    "31/44) (benchmarks/README.md)",
    "real use, rifugio": "rifugio (tests/eval/realuse-blind20, written by a stranger, run once to decide a change): "
    "recall@3 21/44 against the earlier plugin's 23/44 (with 5 false injections against 38; with keys ours is "
    "34/44) (benchmarks/README.md)",
    "real use, fermento": "fermento (tests/eval/realuse-blind23, written by a stranger, run once to decide a change): "
    "recall@3 26/44, the same as the earlier plugin's (with 3 false injections against 30; with keys ours is "
    "38/44) (benchmarks/README.md)",
    "real use, pozzo": "pozzo (tests/eval/realuse-blind37, written by a stranger, run once to decide a change): "
    "recall@3 25/44 against the earlier plugin's 27/44 (with 6 false injections against 38; with keys ours is "
    "35/44) (benchmarks/README.md)",
    "real use, museo": "museo (tests/eval/realuse-blind41, written by a stranger, run once to decide a change): "
    "recall@3 17/44 against the earlier plugin's 20/44 (with 0 false injections against 28; with keys ours is "
    "30/44) (benchmarks/README.md)",
    "real use, porto": "porto (tests/eval/realuse-blind47, written by a stranger, run once to decide a change): "
    "recall@3 28/44 against the earlier plugin's 31/44 (with 4 false injections against 41; with keys ours is "
    "37/44) (benchmarks/README.md)",
    "real use, autobus": "autobus (tests/eval/realuse-blind51, written by a stranger, run once to decide a change): "
    "recall@3 26/44 against the earlier plugin's 27/44 (with 3 false injections against 38; with keys ours is "
    "38/44) (benchmarks/README.md)",
    "real use, lavanderia": "lavanderia (tests/eval/realuse-blind53, written by a stranger, run once to decide a change): "
    "recall@3 27/44 against the earlier plugin's 30/44 (with 3 false injections against 33; with keys ours is "
    "35/44) (benchmarks/README.md)",
    "real use, ascensori": "ascensori (tests/eval/realuse-blind60, written by a stranger, run once to decide a change): "
    "recall@3 24/44 against the earlier plugin's 27/44 (with 10 false injections against 29; with keys ours is "
    "31/44) (benchmarks/README.md)",
    "real use, catasto": "catasto (tests/eval/realuse-blind61, written by a stranger, run once to decide a change): "
    "recall@3 21/44 against the earlier plugin's 24/44 (with 4 false injections against 39; with keys ours is "
    "32/44) (benchmarks/README.md)",
    "real use, gelateria": "gelateria (tests/eval/realuse-blind62, written by a stranger, run once to decide a change): "
    "recall@3 22/44 against the earlier plugin's 24/44 (with 10 false injections against 34; with keys ours is "
    "33/44) (benchmarks/README.md)",
}
"""Sets where ours is behind the earlier plugin on recall@3, each with its numbers."""


@pytest.mark.parametrize("name", [s.name for s in sets.SETS])
def test_ours_is_ahead_of_the_earlier_plugin(name: str, request) -> None:
    """recall@3 higher AND false injections fewer than the earlier plugin's algorithm, on
    every set of the repository: neither bought with the other."""
    if name in BEHIND_ON_RECALL:
        request.applymarker(pytest.mark.xfail(strict=True, reason=BEHIND_ON_RECALL[name]))
    r = comparison()[name]
    ours, base = r["ours"], r["baseline"]
    ours_fi = ours["off_topic"][0] + ours["in_project"][0]
    base_fi = base["off_topic"][0] + base["in_project"][0]
    assert ours_fi < base_fi
    assert ours["recall3"] > base["recall3"]


@pytest.mark.xfail(
    strict=True,
    reason="issue 26 targets not reached on the real-use held-out set (benchmarks/README.md): "
    "hit@1 77%, recall@3 86%, false injections 7% off-topic and 13% in-project; keyed: "
    "82%, 96%, 17% and 18% (recall@3 met, hit@1 and false injections not)",
)
@pytest.mark.parametrize("keyed", [None, KEYED], ids=["plain", "keyed"])
def test_issue_26_targets_on_the_realuse_holdout(keyed: Path | None) -> None:
    s = summary(HOLDOUT, override=keyed)
    pos = s["positives"]
    assert pos["hit1_rate"] >= 0.85
    assert pos["recall3_rate"] >= 0.90
    assert s["negatives_off_topic"]["false_injection_rate"] <= 0.02
    assert s["negatives_in_project"]["false_injection_rate"] <= 0.05
    assert pos["tokens_median"] <= 400
