"""Doctor's checks on memory files: parse, refs, superseded citations, secrets, TOC, duplicates,
search keys."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from agd.errors import AgdError, UnreadableFile
from agd.files import read_text
from agd.model import FENCED, Block
from agd.refs import declared

from .. import secrets
from ..errors import MemoryFileError
from ..settings import Settings
from ..store import MemoryFile, rules
from .findings import Finding
from .source import SourceFile, is_entry, split_refs

DUPLICATE_JACCARD = 0.8
"""Share of distinct words two entries of one kind must have in common to look duplicated."""
DUPLICATE_MIN_WORDS = 6
"""Shorter entries are too small to compare by words; only an identical desc flags them."""


@dataclass
class Memory:
    layer: str
    path: Path
    source: SourceFile

    @property
    def entries(self) -> list[Block]:
        return [b for b in self.source.document.blocks if is_entry(b)]

    def where(self, block: Block) -> str:
        return f"{self.path}:{block.line}"


SKIPPED = " (hooks and tools skip this file until then)"


def load(files: list[tuple[str, Path]], findings: list[Finding]) -> list[Memory]:
    memories = []
    for layer, path in files:
        try:
            exists = MemoryFile(path, layer=layer).exists()  # the store's stat rule
        except MemoryFileError as exc:  # a path through a file, too long, no access, a loop
            findings.append(Finding("error", "file", exc.message))
            continue
        if not exists and not os.path.lexists(path):
            findings.append(
                Finding(
                    "info", "file", f"no {layer} memory yet at {path}; the first save creates it"
                )
            )
            continue
        try:  # bounded, regular files only: a FIFO or a device here is reported, not read
            text = read_text(path)
        except UnreadableFile as exc:
            findings.append(
                Finding(
                    "error",
                    "file",
                    f"{path}: cannot read: {exc.reason}",
                )
            )
            continue
        try:
            source = SourceFile.parse_strict(path, text)
        except AgdError as exc:
            conflict = rules.conflict_message(path, text, parsed=False)
            if conflict is not None:
                findings.append(Finding("error", "file", f"{conflict}{SKIPPED}"))
                continue
            findings.append(
                Finding(
                    "error",
                    "file",
                    f"{path}:{exc.line}:{exc.col}: does not parse: {exc} — fix that line by hand"
                    f"{SKIPPED}",
                )
            )
            continue
        conflict = rules.conflict_message(path, text)
        if conflict is not None:  # readers skip it: never "ok"
            findings.append(Finding("error", "file", f"{conflict}{SKIPPED}"))
            continue
        memory = Memory(layer, path, source)
        n = len(memory.entries)
        label = "memory file" if layer == "file" else f"{layer} memory"
        findings.append(
            Finding("ok", "file", f"{label} {path}: {n} entr{'y' if n == 1 else 'ies'}")
        )
        memories.append(memory)
    return memories


def _edges(block: Block) -> list[tuple[str, str]]:
    """(attribute, id) for every citation: refs and @ref nodes, then supersedes."""
    out = [("refs", t) for t in declared(block)]
    out += [("supersedes", t) for t in split_refs(block.attrs.get("supersedes"))]
    return out


def _name(block: Block) -> str:
    return f"#{block.id}" if block.id else f"the @{block.kind} block"


def dangling_refs(memories: list[Memory]) -> list[Finding]:
    """Citations of ids that no layer has (a citation of the other layer's block is fine)."""
    everywhere = {b.id for m in memories for b in m.source.document.blocks if b.id}
    out = []
    for m in memories:
        for block in m.source.document.blocks:
            for key, target in _edges(block):
                if target not in everywhere:
                    out.append(
                        Finding(
                            "warn",
                            "refs",
                            f"{m.where(block)}: {_name(block)} cites #{target} in {key}, but no "
                            f"block has that id — remove it from {key}, or save #{target}",
                        )
                    )
    return out


def superseded_cited(memories: list[Memory]) -> list[Finding]:
    """Live entries that still cite a superseded block instead of its successor."""
    superseded: set[str] = set()
    successors: dict[str, list[str]] = {}
    for m in memories:
        for block in m.entries:
            if block.attrs.get("status") == "superseded":
                superseded.add(str(block.id))
            for old in split_refs(block.attrs.get("supersedes")):
                successors.setdefault(old, []).append(str(block.id))
    out = []
    for m in memories:
        for block in m.source.document.blocks:
            if block.attrs.get("status") == "superseded":
                continue  # an old block citing another old block is history
            replaced = set(split_refs(block.attrs.get("supersedes")))
            for target in declared(block):
                if target not in superseded or target in replaced:
                    continue
                succ = successors.get(target)
                fix = (
                    f"point it at {', '.join('#' + s for s in succ)} instead"
                    if succ
                    else f"point it at the block that replaced #{target}"
                )
                out.append(
                    Finding(
                        "warn",
                        "superseded",
                        f"{m.where(block)}: {_name(block)} cites #{target}, which is superseded — {fix}",
                    )
                )
    return out


def secret_strings(memories: list[Memory]) -> list[Finding]:
    out = []
    for m in memories:
        for block in m.entries:
            # (text, line of its opening fence), or None for the desc on the header line
            texts: list[tuple[str, int | None]] = [(block.desc or "", None)]
            if block.content_type == FENCED:
                texts.append((str(block.value), _fence_line(m.source, block)))
            for text, fence in texts:
                for found in secrets.find(text):
                    line = block.line if fence is None else fence + found.line
                    article = "an" if found.kind[:1].lower() in "aeiou" else "a"
                    out.append(
                        Finding(
                            "error",
                            "secrets",
                            f"{m.path}:{line}: #{block.id} holds what looks like {article} "
                            f"{found.kind} ({found.excerpt}) — remove it from the entry, rotate "
                            "the secret, and delete old .bak copies",
                        )
                    )
    return out


def _fence_line(source: SourceFile, block: Block) -> int:
    """1-based line of the opening fence (blank lines may sit between header and fence)."""
    n = block.line  # 0-based index of the line after the header
    while n < len(source.lines) and source.lines[n] == "":
        n += 1
    return n + 1


def search_keys(memories: list[Memory]) -> list[Finding]:
    """Live entries without `keys` are found only by the words of their id, desc and body."""
    findings = []
    for m in memories:
        live = [b for b in m.entries if b.attrs.get("status") != "superseded"]
        bare = [b for b in live if not str(b.attrs.get("keys") or "").strip()]
        if not bare:
            continue
        findings.append(
            Finding(
                "info",
                "keys",
                f"{m.path}: {len(bare)} of {len(live)} entries have no search keys, so recall "
                "finds them only by their own words — the distiller keys a few after each "
                f"session it distils; `agd-memory keys {m.path}` proposes keys for all of "
                "them now (a headless claude pass), `--apply` writes them",
            )
        )
    return findings


def toc_budget(memories: list[Memory], settings: Settings) -> list[Finding]:
    """Does the whole table of contents fit SessionStart's budget?"""
    budget = settings.toc_token_budget
    live = [b for m in memories for b in m.entries if b.attrs.get("status") != "superseded"]
    if not live:
        return []
    tokens = _toc_tokens(memories, settings)
    label = " (estimated as SessionStart counts them)"
    if tokens <= budget:
        return [
            Finding(
                "ok",
                "toc",
                f"table of contents: {tokens} tokens{label} for {len(live)} entries, within the {budget}-token budget",
            )
        ]
    return [
        Finding(
            "warn",
            "toc",
            f"table of contents: {tokens} tokens{label} for {len(live)} entries, over the "
            f"{budget}-token budget, so SessionStart lists only part of it — mark finished "
            "entries done or superseded, merge duplicates, or raise AGD_TOC_TOKEN_BUDGET",
        )
    ]


def _toc_tokens(memories: list[Memory], settings: Settings) -> int:
    """Tokens of the whole TOC, rendered and counted as SessionStart renders and counts it
    (`toc.budget_tokens`, an estimate), so "within the budget" means SessionStart lists all."""
    from .. import store, toc
    from ..claude import session_toc

    files = [store.MemoryFile(m.path, layer=m.layer, settings=settings) for m in memories]
    text = session_toc.render(files, settings.replace(toc_token_budget=10**9))
    return toc.budget_tokens(text)


_WORD = re.compile(r"\w{3,}")


def _words(block: Block) -> frozenset[str]:
    body = str(block.value) if block.content_type == FENCED else ""
    return frozenset(w.lower() for w in _WORD.findall(f"{block.desc or ''} {body}"))


def _norm_desc(block: Block) -> str:
    return " ".join(_WORD.findall((block.desc or "").lower()))


def duplicates(memories: list[Memory]) -> list[Finding]:
    """Pairs of live entries of one kind with the same desc or mostly the same words."""
    by_kind: dict[str, list[tuple[Memory, Block, frozenset[str], str]]] = {}
    for m in memories:
        for block in m.entries:
            if block.attrs.get("status") == "superseded":
                continue
            by_kind.setdefault(block.kind, []).append((m, block, _words(block), _norm_desc(block)))
    pairs: dict[tuple[int, int], tuple[tuple[Memory, Block], tuple[Memory, Block], str]] = {}
    for items in by_kind.values():
        by_desc: dict[str, list[tuple[Memory, Block]]] = {}
        for m, b, _, d in items:
            if d:
                by_desc.setdefault(d, []).append((m, b))
        for group in by_desc.values():
            for i, first in enumerate(group):
                for second in group[i + 1 :]:
                    same = (first[1].desc or "").strip() == (second[1].desc or "").strip()
                    why = "the same desc" if same else "descs with the same words"
                    pairs[(id(first[1]), id(second[1]))] = (first, second, why)
        # Sorted by size, the inner loop stops once sizes differ too much for the
        # threshold: |A ∩ B| / |A ∪ B| <= |A| / |B| when |A| <= |B|.
        items.sort(key=lambda it: len(it[2]))
        for i, (m1, b1, w1, _) in enumerate(items):
            if len(w1) < DUPLICATE_MIN_WORDS:
                continue
            for m2, b2, w2, _ in items[i + 1 :]:
                if len(w1) < DUPLICATE_JACCARD * len(w2):
                    break
                share = len(w1 & w2) / len(w1 | w2)
                key = (id(b1), id(b2))
                if share >= DUPLICATE_JACCARD and key not in pairs and key[::-1] not in pairs:
                    pairs[key] = ((m1, b1), (m2, b2), f"{share:.0%} of their words in common")
    out = []
    ordered = []
    for a, b, why in pairs.values():
        first, second = sorted((a, b), key=lambda mb: (str(mb[0].path), mb[1].line))
        ordered.append(
            (
                str(first[0].path),
                first[1].line,
                str(second[0].path),
                second[1].line,
                first,
                second,
                why,
            )
        )
    ordered.sort(key=lambda row: row[:4])
    for *_, first, second, why in ordered:
        out.append(
            Finding(
                "warn",
                "duplicates",
                f"{first[0].where(first[1])}: #{first[1].id} and #{second[1].id} "
                f"({second[0].where(second[1])}) look like duplicates ({why}) — keep one "
                "and save it with --supersedes the other",
            )
        )
    return out
