"""The recall evaluation: run every case through the hook's own path and score it.

A cases file is `{"cases": [{corpus, lang, prompt, expect, tags?}]}` (the format of
`tests/data/recall-dev/cases.json`, a superset of the reference's). `corpus` names a
project memory file by its path relative to the cases file; `global.agd` beside the
corpus, when present, is loaded as the global layer. A negative with `corpus: "*"` (off topic)
runs against every project corpus the positives use; a negative naming a corpus (in project: a
task prompt on that project that no entry answers) runs against that corpus only. Every run goes through `engine.recall` (a variant of
`features` through `variants.recall`), gates included, so a prompt the hook refuses retrieves nothing.

Metrics per prompt-language bucket: hit@1 (expected id injected first), recall@3
(expected id among the first three injected), tokens injected (estimated, 4 chars a
token; 0 when nothing is injected) and, over negative runs, false injections.
`search_recall` measures ranked search (no gates) on the same positives: recall@5 side by
side with a textbook BM25 over the same entries.
"""

from __future__ import annotations

import json
import math
import os
import statistics
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agd.errors import UnreadableFile
from agd.files import read_text

from ...errors import UserError
from ...store import Entry, MemoryFile
from .. import engine, policy, search
from ..engine import RecallResult
from ..text import reference_tokens
from . import features as feature_set
from . import variants

if TYPE_CHECKING:
    from ...settings import Settings

GLOBAL_NAME = "global.agd"
NEGATIVE = "negative"


@dataclass
class CaseResult:
    corpus: str
    lang: str
    prompt: str
    expect: str | None
    tags: list[str]
    injected: list[str]
    tokens: int
    skipped: str | None
    in_project: bool = False
    """A negative written for this corpus (a task prompt on the project), not an off-topic one."""

    @property
    def hit1(self) -> bool:
        return bool(self.injected) and self.injected[0] == self.expect

    @property
    def hit3(self) -> bool:
        return self.expect in self.injected[:3]

    @property
    def false_injection(self) -> bool:
        return self.expect is None and bool(self.injected)


@dataclass
class Report:
    results: list[CaseResult] = field(default_factory=list)

    @property
    def positives(self) -> list[CaseResult]:
        return [r for r in self.results if r.expect is not None]

    @property
    def negatives(self) -> list[CaseResult]:
        return [r for r in self.results if r.expect is None]

    def summary(self) -> dict[str, Any]:
        """Totals and per-bucket numbers (the shape `eval --json` prints)."""
        buckets: dict[str, list[CaseResult]] = defaultdict(list)
        for r in self.positives:
            buckets[r.lang].append(r)
        out: dict[str, Any] = {"buckets": {}, "tags": {}}
        for lang, rs in sorted(buckets.items()):
            out["buckets"][lang] = _positive_stats(rs)
        tags: dict[str, list[CaseResult]] = defaultdict(list)
        for r in self.positives:
            for t in r.tags:
                tags[t].append(r)
        for tag, rs in sorted(tags.items()):
            out["tags"][tag] = _positive_stats(rs)
        out["positives"] = _positive_stats(self.positives)
        neg = self.negatives
        out["negatives"] = _negative_stats(neg)
        out["negatives_off_topic"] = _negative_stats([r for r in neg if not r.in_project])
        out["negatives_in_project"] = _negative_stats([r for r in neg if r.in_project])
        return out


def _negative_stats(neg: Sequence[CaseResult]) -> dict[str, Any]:
    false = sum(r.false_injection for r in neg)
    return {
        "runs": len(neg),
        "false_injections": false,
        "false_injection_rate": false / len(neg) if neg else 0.0,
        "tokens_total": sum(r.tokens for r in neg),
    }


def _positive_stats(rs: Sequence[CaseResult]) -> dict[str, Any]:
    n = len(rs)
    hit1 = sum(r.hit1 for r in rs)
    hit3 = sum(r.hit3 for r in rs)
    tokens = [r.tokens for r in rs]
    return {
        "cases": n,
        "hit1": hit1,
        "recall3": hit3,
        "hit1_rate": hit1 / n if n else 0.0,
        "recall3_rate": hit3 / n if n else 0.0,
        "tokens_median": statistics.median(tokens) if tokens else 0,
        "tokens_total": sum(tokens),
    }


CASES_LIMIT = 64 * 1024 * 1024
"""The most a cases file may hold (the largest shipped set is well under 1 MiB)."""


def load_cases(path: Path) -> list[dict[str, Any]]:
    try:  # bounded, regular files only: a FIFO or a device is an error, not a hang
        data = json.loads(read_text(path, CASES_LIMIT))
    except UnreadableFile as exc:
        if not os.path.lexists(path):
            raise UserError(f"{path}: no such cases file; pass a cases JSON file") from None
        raise UserError(f"{path}: cannot read the cases file: {exc.reason}") from None
    except (ValueError, RecursionError) as exc:
        raise UserError(f"{path}: cannot read the cases file (not JSON: {exc})") from None
    cases = data.get("cases") if isinstance(data, dict) else None
    if not isinstance(cases, list):
        raise UserError(f'{path}: the top level must be {{"cases": [...]}}')
    if not cases:
        raise UserError(f"{path}: the cases list is empty; an eval of no cases measures nothing")
    return cases


def run(
    cases_path: Path,
    settings: Settings,
    *,
    features: frozenset[str] | None = None,
    override: Path | None = None,
) -> Report:
    """Run every case of `cases_path` through `engine.recall` with `settings`.

    With `override`, a corpus whose file name is in that folder is read from there, with
    the folder's `global.agd` (the same memories rewritten, e.g. with keys); the others
    are read as usual."""
    feats = feature_set.DEFAULT if features is None else features
    cases_path = Path(cases_path)
    cases = load_cases(cases_path)
    files = corpus_files(cases_path, cases, settings, override)
    names = sorted(files)
    report = Report()
    for case in cases:
        expect = case.get("expect")
        in_project = expect is None and case.get("corpus", "*") != "*"
        targets = names if expect is None and not in_project else [case["corpus"]]
        for name in targets:
            layers = files[name]
            if feats == feature_set.DEFAULT:  # what the hook runs
                result = engine.recall(case["prompt"], layers, settings)
            else:
                result = variants.recall(case["prompt"], layers, settings, feats)
            report.results.append(_case_result(case, name, result, in_project))
    return report


def corpus_files(
    cases_path: Path, cases: Sequence[Mapping[str, Any]], settings: Settings, override: Path | None
) -> dict[str, list[MemoryFile]]:
    """Corpus name -> its layer files (project, then the `global.agd` beside it)."""
    names = sorted({c["corpus"] for c in cases if c.get("expect") is not None})
    stray = {c.get("corpus") for c in cases if c.get("expect") is None} - {"*", *names}
    if stray:
        # a negative is run only against the memories the positives use
        raise UserError(f"{cases_path}: negatives name corpora no positive uses: {sorted(stray)}")
    if override is not None and not Path(override).is_dir():
        # a missing keyed folder would silently measure the memories without keys
        raise UserError(f"{override}: no such folder of rewritten memories")
    files: dict[str, list[MemoryFile]] = {}
    for name in names:
        # a corpus is a path relative to the cases file; its global layer is the
        # `global.agd` beside it (so one cases file can use memories from several places)
        project = cases_path.parent / name
        if override is not None:
            # the rewritten copy sits at the corpus's own path under the folder
            # (`quarry/en-quarry.agd`), or by file name at its top
            for copy in (Path(override) / name, Path(override) / project.name):
                if copy.is_file():
                    project = copy
                    break
        if not project.is_file():
            raise UserError(f"{cases_path}: corpus {name} not found relative to the cases file")
        global_path = project.parent / GLOBAL_NAME
        layer_files = [MemoryFile(project, layer="project", settings=settings)]
        if global_path.is_file() and project.resolve() != global_path.resolve():
            layer_files.append(MemoryFile(global_path, layer="global", settings=settings))
        files[name] = layer_files
    return files


def search_recall(
    cases_path: Path, settings: Settings, *, override: Path | None = None, k: int = 5
) -> tuple[int, int, int]:
    """Ranked search against a plain BM25 on the positives of `cases_path`: the cases
    whose expected entry is among the first `k` results of each, and the positives."""
    cases_path = Path(cases_path)
    cases = load_cases(cases_path)
    files = corpus_files(cases_path, cases, settings, override)
    ranked_hits = bm25_hits = total = 0
    for case in cases:
        if case.get("expect") is None:
            continue
        layer_files = files[case["corpus"]]
        entries = [
            e
            for f in layer_files
            for e in f.entries()
            if str(e.kind).startswith("x-") and e.status != "superseded"
        ]
        ids = {str(e.id) for e in entries}
        # superseded entries are results too (ranked lower); the baseline does not have them
        hits = search.search(case["prompt"], layer_files, settings, limit=k + 50)
        ranked = [str(h.entry.id) for h in hits if str(h.entry.id) in ids][:k]
        total += 1
        ranked_hits += case["expect"] in ranked
        bm25_hits += case["expect"] in plain_bm25(entries, case["prompt"], k)
    return ranked_hits, bm25_hits, total


def plain_bm25(
    entries: Sequence[Entry], query: str, k: int, k1: float = 1.2, b: float = 0.75
) -> list[str]:
    """The baseline ranked search is measured against: textbook BM25 over id + desc +
    keys + body as one field, with the reference tokenizer and no stopwords."""
    docs = []
    for e in entries:
        keys = str(e.attrs.get("keys") or "")
        text = " ".join([str(e.id).replace("-", " "), e.desc or "", keys, e.body or ""])
        docs.append(Counter(reference_tokens(text, 3)))
    n = len(docs) or 1
    avg = sum(sum(d.values()) for d in docs) / n or 1.0
    df: Counter[str] = Counter()
    for d in docs:
        df.update(d.keys())
    q = set(reference_tokens(query, 3))
    scored = []
    for e, d in zip(entries, docs, strict=True):
        length = sum(d.values())
        score = 0.0
        for t in q:
            tf = d.get(t, 0)
            if tf:
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avg))
        if score > 0:
            scored.append((score, str(e.id)))
    scored.sort(key=lambda x: (-x[0], x[1]))
    return [i for _, i in scored[:k]]


def _case_result(
    case: Mapping[str, Any], corpus: str, result: RecallResult, in_project: bool = False
) -> CaseResult:
    injected = [str(s.entry.id) for s in result.chosen]
    chars = result.injected_chars
    return CaseResult(
        corpus=corpus,
        lang=str(case.get("lang", "?")),
        prompt=str(case["prompt"]),
        expect=case.get("expect"),
        tags=list(case.get("tags") or []),
        injected=injected,
        tokens=policy.estimate_tokens(chars) if chars else 0,
        skipped=result.skipped,
        in_project=in_project,
    )


def _pct(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "-"


def format_report(report: Report, *, verbose: bool = False) -> str:
    s = report.summary()
    lines = [
        f"{'bucket':10} {'cases':>5}  {'hit@1':>12}  {'recall@3':>12}  {'tokens med':>10}  {'total':>7}"
    ]
    rows = list(s["buckets"].items()) + [("all", s["positives"])]
    for name, b in rows:
        lines.append(
            f"{name:10} {b['cases']:>5}  {_pct(b['hit1'], b['cases']):>12}  "
            f"{_pct(b['recall3'], b['cases']):>12}  {b['tokens_median']:>10}  {b['tokens_total']:>7}"
        )
    n = s["negatives"]
    lines.append(
        f"{NEGATIVE:10} {n['runs']:>5}  false injections {_pct(n['false_injections'], n['runs'])}"
        f", {n['tokens_total']} tokens"
    )
    for label, key in (
        ("off topic", "negatives_off_topic"),
        ("in project", "negatives_in_project"),
    ):
        part = s[key]
        if part["runs"] and part["runs"] != n["runs"]:
            lines.append(
                f"{label:10} {part['runs']:>5}  false injections"
                f" {_pct(part['false_injections'], part['runs'])}"
            )
    if s["tags"]:
        lines.append("")
        lines.append(
            "by tag: "
            + ", ".join(f"{t} {b['hit1']}/{b['cases']}" for t, b in s["tags"].items())
            + " (hit@1)"
        )
    if verbose:
        lines.append("")
        for r in report.results:
            if r.expect is not None and not r.hit1:
                got = ", ".join(r.injected) or f"nothing ({r.skipped})"
                lines.append(f"MISS  [{r.lang}] {r.prompt!r}: want #{r.expect}, got {got}")
            elif r.false_injection:
                lines.append(
                    f"FALSE [{r.lang}] {r.prompt!r} on {r.corpus}: {', '.join(r.injected)}"
                )
    return "\n".join(lines)
