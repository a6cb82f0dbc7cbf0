"""The SessionStart table of contents and the filtered listing."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from agd_memory import store, toc
from agd_memory.claude import session_toc
from agd_memory.errors import UserError


def estimate(text: str) -> int:
    return math.ceil(len(text) / 4)


@pytest.fixture
def files(tmp_path: Path, settings) -> list[store.MemoryFile]:
    p = store.MemoryFile(tmp_path / "p.agd", layer="project", settings=settings)
    g = store.MemoryFile(tmp_path / "g.agd", layer="global", settings=settings)
    p.save("x-project", "db", "Postgres 16.", desc="database choice")
    p.save("x-project", "todo-migrate", "Move to v17.", desc="migrate", status="open")
    p.save("x-project", "old-db", "MySQL.", desc="old database")
    p.save("x-project", "new-db", "Postgres.", desc="replaces MySQL", supersedes=["old-db"])
    p.save("x-feedback", "terse", "Keep answers short.", desc="terse answers", status="done")
    p.save("x-user", "nodesc", "\n  First body line used as desc\nsecond line")
    g.save("x-user", "lang", "Italian and English.", desc="languages")
    return [p, g]


def test_render_groups_by_layer_and_kind_with_open_first(files, settings):
    text = session_toc.render(files, settings, count=estimate)
    lines = text.splitlines()
    assert lines[0] == toc.HEADER
    body = [line for line in lines if line.startswith(("## ", "- "))]
    assert body == [
        "## user (project layer)",
        "- #nodesc: First body line used as desc [2026-03-14]",
        "## feedback (project layer)",
        "- #terse: terse answers [done, 2026-03-14]",
        "## project (project layer)",
        "- #todo-migrate: migrate [open, 2026-03-14]",
        "- #new-db: replaces MySQL [2026-03-14]",
        "- #db: database choice [2026-03-14]",
        "## user (global layer)",
        "- #lang: languages [2026-03-14]",
    ]
    assert "old-db" not in text, "superseded blocks are left out"
    assert "h-project" not in text and "#root" not in text, "scaffold headings are left out"
    assert lines[-1] == session_toc.FETCH_LINE
    assert "more entries, listed by mcp__plugin_agd-memory_agd-memory__agd_memory_toc" not in text


def test_render_is_empty_without_memory(tmp_path: Path, settings):
    missing = store.MemoryFile(tmp_path / "none.agd", settings=settings)
    assert toc.render([missing], settings) == ""
    scaffold_only = store.MemoryFile(tmp_path / "s.agd", settings=settings)
    scaffold_only.path.write_text(store.SCAFFOLD)
    assert toc.render([scaffold_only], settings) == ""


def test_long_desc_is_cut_to_one_short_line(tmp_path: Path, settings):
    mf = store.MemoryFile(tmp_path / "m.agd", settings=settings)
    mf.save("x-project", "long", "x", desc="word " * 60)
    text = toc.render([mf], settings, count=estimate)
    line = next(x for x in text.splitlines() if x.startswith("- #long"))
    assert len(line) < toc.MAX_DESC_CHARS + 40 and "…" in line


def _big_memory(path: Path, n: int) -> None:
    blocks = [store.SCAFFOLD]
    for i in range(n):
        day = f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}"
        status = " status=open" if i % 500 == 7 else ""
        blocks.append(
            f'@x-project desc="entry number {i} about topic {i % 37}" created={day} '
            f"updated={day}{status} [#e{i}]\n~~~\nbody {i}\n~~~\n"
        )
    path.write_text("\n".join(blocks), encoding="utf-8")


@pytest.mark.parametrize("budget", [2000, 300])
def test_budget_is_respected_on_10000_blocks_keeping_open_and_newest(
    tmp_path: Path, settings, budget: int
):
    mf = store.MemoryFile(tmp_path / "big.agd", settings=settings)
    _big_memory(mf.path, 10_000)
    s = settings.replace(toc_token_budget=budget)
    text = session_toc.render([mf], s, count=estimate)
    assert estimate(text) <= budget
    shown = [line for line in text.splitlines() if line.startswith("- #")]
    more = next(line for line in text.splitlines() if line.startswith("+"))
    assert (
        more
        == f"+{10_000 - len(shown)} more entries, listed by {session_toc.TOOL_PREFIX}agd_memory_toc"
    )
    assert shown, "something fits"
    open_ids = {f"e{i}" for i in range(10_000) if i % 500 == 7}
    shown_ids = {line.split(":")[0][3:] for line in shown}
    if budget >= 2000:
        assert open_ids <= shown_ids, "open entries stay"
    dates = [
        line.rsplit("[", 1)[1].rstrip("]").split(", ")[-1] for line in shown if "open" not in line
    ]
    assert min(dates) >= "2025-12-01", "the newest entries stay"


def test_tiny_budget_still_bounded(files, settings):
    text = toc.render(files, settings.replace(toc_token_budget=10), count=estimate)
    assert estimate(text) <= 10


def test_list_entries_filters(files):
    # file then document order (newest first within a section)
    assert [e.id for e in toc.list_entries(files, kind="project")] == [
        "new-db",
        "old-db",
        "todo-migrate",
        "db",
    ]
    assert [e.id for e in toc.list_entries(files, kind="x-user")] == ["nodesc", "lang"]
    assert [e.id for e in toc.list_entries(files, status="open")] == ["todo-migrate"]
    assert [e.id for e in toc.list_entries(files, status="superseded")] == ["old-db"]
    assert all(e.is_memory for e in toc.list_entries(files))


def test_since_compares_dates_and_falls_back_to_created(tmp_path: Path, settings):
    mf = store.MemoryFile(tmp_path / "m.agd", settings=settings)
    mf.path.write_text(
        store.SCAFFOLD
        + "\n@x-project created=2026-01-05 [#only-created]\n"
        + '\n@x-project created=2025-01-01 updated="2026-02-01" [#updated]\n'
        + "\n@x-project created=2025-12-31 [#old]\n"
        + "\n@x-project [#undated]\n"
    )
    assert [e.id for e in toc.list_entries([mf], since="2026-01-01")] == [
        "only-created",
        "updated",
    ]
    assert [e.id for e in toc.list_entries([mf], since="2026-01-06")] == ["updated"]
    with pytest.raises(UserError, match="not a date"):
        toc.list_entries([mf], since="2026-1-6")
    with pytest.raises(UserError, match="not a date"):
        toc.list_entries([mf], since="yesterday")


def test_the_budget_is_counted_one_way_for_every_reader(files, settings):
    # SessionStart, `agd-memory toc`, the distiller and doctor all count with budget_tokens:
    # a TOC of N estimated tokens is whole at a budget of N and cut at N - 1
    full = session_toc.render(files, settings.replace(toc_token_budget=10**9))
    need = toc.budget_tokens(full)
    assert session_toc.render(files, settings.replace(toc_token_budget=need)) == full
    assert "more entries, listed by mcp__plugin_agd-memory_agd-memory__agd_memory_toc" in (
        session_toc.render(files, settings.replace(toc_token_budget=need - 1))
    )


def test_tool_hints_name_the_tools_as_claude_code_shows_them(tmp_path: Path, settings) -> None:
    # With tool search (Claude Code's default) the MCP tools are deferred and prefixed; the
    # hint says so as a fact (hook text phrased as commands trips injection defences).
    path = tmp_path / "memory.agd"
    path.write_text("@x-project [#a]\n~~~\nfact\n~~~\n", encoding="utf-8")
    files = [store.MemoryFile(path, layer="project", settings=settings)]
    text = session_toc.render(files, settings)
    hint = text.splitlines()[-1]
    assert "mcp__plugin_agd-memory_agd-memory__agd_memory_get" in hint
    assert "mcp__plugin_agd-memory_agd-memory__agd_memory_search" in hint
    assert "ToolSearch" in hint
    assert hint.split()[0] not in ("Fetch", "Use", "Call", "Run")


def test_the_toc_itself_names_no_client_tools(files, settings) -> None:
    # the hook adapter passes the lines naming Claude Code's tools; the TOC of the
    # distiller's tool-less run, or of `agd-memory toc`, has none
    whole = toc.render(files, settings)
    cut = toc.render(files, settings.replace(toc_token_budget=110), count=estimate)
    for text in (whole, cut):
        assert "agd_memory_" not in text and "mcp__" not in text
    assert cut.rstrip().splitlines()[-1].startswith("+") and "more entries" in cut
