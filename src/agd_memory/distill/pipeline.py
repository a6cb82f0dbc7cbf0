"""Distil one session: gate, one headless run, proposals written. Shared by the worker and the CLI.

The order matters: the gate runs before anything costs money, and the read
offset of the transcript is advanced only after an answer was applied, so a
failed run is tried again on the session's next end while a finished one is
never distilled twice.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..claude import headless, transcript
from ..settings import Settings
from . import proposals, schema, state
from .state import Pending

if TYPE_CHECKING:
    from ..paths import Layers
    from ..store import MemoryFile

PROMPT_FILE = Path(__file__).with_name("prompt.md")
TOC_ENTRY = re.compile(r"^(?:- )?#([A-Za-z_][A-Za-z0-9_-]*)", re.MULTILINE)
"""An entry's line in the TOC sent to the model (`- #id: desc`, or `#id (kind, layer)`)."""


@dataclass
class Result:
    outcome: str
    """`skipped` (gated out), `nothing` (no proposal survived), `saved`, `pending` (queued for
    review, nothing saved), `failed`, or `dry-run`."""
    detail: str
    report: proposals.Report = field(default_factory=proposals.Report)
    raw_proposals: list[object] = field(default_factory=list)
    """The model's answer as given, made printable (`schema.plain`)."""
    attempts: int = 0
    seconds: float = 0.0
    keyed: int = 0
    """Older entries given search keys after the run (`AGD_DISTILL_KEYS_PER_SESSION`)."""

    def as_record(self, item: Pending, memory_file: str) -> dict[str, object]:
        return {
            "session_id": item.session_id,
            "transcript": item.transcript,
            "memory_file": memory_file,
            "outcome": self.outcome,
            "detail": self.detail,
            "saved": [
                {"id": o.id, "action": o.action, "layer": o.layer}
                for o in self.report.outcomes
                if o.saved
            ],
            "skipped": [
                {"id": o.id, "action": o.action, "why": o.message}
                for o in self.report.outcomes
                if not o.saved
            ],
            "keyed": self.keyed,
            "attempts": self.attempts,
            "seconds": round(self.seconds, 2),
        }


def system_prompt() -> str:
    return PROMPT_FILE.read_text(encoding="utf-8")


def build_message(toc_text: str, session_text: str, item: Pending) -> str:
    """The user message: the memory's TOC and the session excerpt, each in its own tag.

    A closing tag inside the data is defused so the transcript cannot end its
    own section and pose as something else.
    """

    def defuse(text: str) -> str:
        return text.replace("</session", "<\\/session").replace("</memory-toc", "<\\/memory-toc")

    toc_part = defuse(toc_text.strip()) or "(the memory is empty)"
    return (
        f"<memory-toc>\n{toc_part}\n</memory-toc>\n\n"
        f"<session id={item.session_id!r} cwd={item.cwd!r}>\n{defuse(session_text)}\n</session>\n\n"
        "Propose the entries worth remembering (zero to three) as the structured result."
    )


def layer_files(layers: Layers, settings: Settings) -> list[MemoryFile]:
    """The memory files of the layers that exist (`Layers.select("all")`: team, project, global)."""
    from .. import store

    files = store.open_files(layers.select("all"), settings)
    return [f for f in files if f.exists()]


def render_toc(layers: Layers, settings: Settings) -> str:
    """The current table of contents via `toc.render`, or a plain id listing when that fails."""
    files = layer_files(layers, settings)
    if not files:
        return ""
    try:
        from .. import toc

        # the model of this run has no tools: the TOC names none
        return toc.render(files, settings, more_line="({n} more entries not listed)").strip()
    except Exception:  # the TOC is a hint for the model: a plain listing will do
        lines = []
        for mf in files:
            try:
                lines += [
                    f"#{e.id} ({e.kind}, {mf.layer}) {e.desc or ''}".rstrip()
                    for e in mf.entries()
                    if e.is_memory
                ]
            except Exception:
                continue
        return "\n".join(lines)


def distil(
    settings: Settings,
    item: Pending,
    layers: Layers,
    *,
    log: Callable[[str], None],
    dry_run: bool = False,
    whole: bool = False,
    sleep: Callable[[float], None] = time.sleep,
) -> Result:
    """Run the pipeline for one session; never raises for a failed model run (outcome `failed`)."""
    began = time.monotonic()
    start = 0 if whole else state.start_offset(settings, item.transcript)
    try:
        digest = transcript.read(item.transcript, start)
    except OSError as exc:
        return Result(
            "failed", f"cannot read the transcript {item.transcript}: {exc.strerror or exc}"
        )
    verdict = transcript.gate(
        digest, min_edits=settings.distill_min_edits, min_tool_uses=settings.distill_min_tool_uses
    )
    if not verdict.passed:
        return Result("skipped", verdict.reason, seconds=time.monotonic() - began)
    where = f"bytes {digest.start}-{digest.end}" if digest.start else f"{digest.end} bytes"
    if digest.skipped:
        where += f", the {digest.skipped} bytes before them skipped"
    log(f"distilling {item.transcript} ({where}; {verdict.reason})")
    excerpt = transcript.excerpt(digest, settings.distill_excerpt_chars)
    toc_text = render_toc(layers, settings)
    message = build_message(toc_text + proposals.team_note(layers, settings), excerpt, item)
    try:
        answer = headless.ask(
            settings, system_prompt(), message, schema.SCHEMA, log=log, sleep=sleep
        )
    except headless.DistillFailed as exc:
        return Result("failed", str(exc), attempts=exc.attempts, seconds=time.monotonic() - began)
    shown = set(TOC_ENTRY.findall(toc_text))
    report = proposals.apply(
        answer.items,
        layers,
        settings,
        shown=shown,
        log=log,
        dry_run=dry_run,
        session=item.session_id,
    )
    keyed = 0
    if dry_run:
        outcome = "dry-run"
    else:
        state.save_offset(settings, item.transcript, digest.end, item.session_id)
        outcome = "saved" if report.saved_ids else "pending" if report.pending_ids else "nothing"
        keyed = backfill_keys(layers, settings, log, skip=report.saved_ids)
    detail = f"{len(answer.items)} proposed, {len(report.saved_ids)} saved"
    if report.pending_ids:
        detail += f", {len(report.pending_ids)} waiting for review (`agd-memory review`)"
    if keyed:
        detail += f"; search keys given to {keyed} older entries"
    return Result(
        outcome,
        detail,
        report,
        [schema.plain(raw) for raw in answer.items],
        answer.attempts,
        time.monotonic() - began,
        keyed,
    )


def backfill_keys(
    layers: Layers, settings: Settings, log: Callable[[str], None], *, skip: Iterable[str] = ()
) -> int:
    """After a distilled session, keys for up to AGD_DISTILL_KEYS_PER_SESSION older entries
    with few (one more headless run per file, only while such entries are left):
    memories written before keys existed gain them without anyone running `agd-memory keys`.
    The entries this run saved (`skip`) are not older: the model was just asked for keys."""
    limit = settings.distill_keys_per_session
    if limit <= 0:
        return 0
    from . import autokeys

    try:
        files = layer_files(layers, settings)
        return autokeys.backfill(files, settings, limit, log, skip=set(skip))
    except Exception as exc:  # the session is distilled and saved: keys can wait for the next
        log(f"keys for older entries: {type(exc).__name__}: {exc}")
        return 0
