"""The layer table of docs/ARCHITECTURE.md, held by reading every import in `src/`.

Every `import` and `from ... import` (at the top or inside a function) is read with `ast`
and mapped to the package it names; a package imports only packages of its own level or
below, and packages form no circle. Imports under `if TYPE_CHECKING:` are left out: they
never run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

LEVELS = {
    "agd": 0,  # the format
    # base
    "agd_memory": 1,
    "settings": 1,
    "paths": 1,
    "errors": 1,
    "debuglog": 1,
    "diskcache": 1,
    "secrets": 1,
    "secret_shapes": 1,
    "progress": 1,
    "sdkvenv": 1,
    # the store: reads, the transaction, every rule of a write
    "store": 2,
    "unreadable": 2,
    # services over the store
    "recall": 3,
    "toc": 3,
    "hygiene": 3,
    "team": 3,
    "history": 3,
    "claude": 3,  # outbound: headless `claude -p`, transcripts, settings files, import
    # what composes the services
    "distill": 4,
    "maintenance": 4,
    # adapters: entry points
    "claude.hooks": 5,  # inbound: Claude Code's hook payloads
    "commands": 5,
    "cli": 5,
    "mcp": 5,
    "viewer": 5,
}
"""Each unit's level: a unit imports units of its level or below only."""

EXCEPTIONS: dict[tuple[str, str], str] = {}
"""Upward imports still there, each with its reason; the test fails when one goes away, so
that this list only shrinks."""


def unit(module: str) -> str | None:
    """The table's unit of a module name (None outside this project)."""
    parts = module.split(".")
    if parts[0] == "agd":
        return "agd"
    if parts[0] != "agd_memory":
        return None
    if len(parts) == 1 or parts[1] == "__version__":
        return "agd_memory"
    if parts[1] == "claude" and len(parts) > 2 and parts[2] == "hooks":
        return "claude.hooks"
    return parts[1]


def imports() -> Iterator[tuple[str, str, str]]:
    """(importing unit, imported unit, file:line) for every import between two units."""
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).with_suffix("")
        is_package = rel.name == "__init__"
        module = ".".join(rel.parts[:-1] if is_package else rel.parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        type_only = {
            id(n)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
            for stmt in node.body
            for n in ast.walk(stmt)
        }
        for node in ast.walk(tree):
            if id(node) in type_only:
                continue
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = module.split(".") if is_package else module.split(".")[:-1]
                    anchor = anchor[: len(anchor) - node.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                targets = [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in targets:
                a, b = unit(module), unit(target)
                if a and b and a != b:
                    yield a, b, f"{path.relative_to(SRC)}:{node.lineno}"


def test_every_unit_of_src_is_in_the_table() -> None:
    units = {a for a, _, _ in imports()} | {b for _, b, _ in imports()}
    assert sorted(units - set(LEVELS)) == []


def test_no_package_imports_one_above_it() -> None:
    upward: dict[tuple[str, str], list[str]] = {}
    for a, b, where in imports():
        if LEVELS[b] > LEVELS[a]:
            upward.setdefault((a, b), []).append(where)
    assert {k: v for k, v in upward.items() if k not in EXCEPTIONS} == {}
    assert sorted(set(EXCEPTIONS) - set(upward)) == []  # fixed: take it off the list


def test_packages_form_no_circle() -> None:
    graph: dict[str, set[str]] = {}
    for a, b, _ in imports():
        if (a, b) not in EXCEPTIONS:
            graph.setdefault(a, set()).add(b)

    def reach(start: str) -> set[str]:
        seen: set[str] = set()
        todo = [start]
        while todo:
            for nxt in graph.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    assert sorted((a, b) for a in graph for b in graph[a] if a in reach(b)) == []


def test_the_reader_sees_function_level_and_relative_imports() -> None:
    """The test itself: an import inside a function, relative, is an edge it sees."""
    edges = {(a, b) for a, b, _ in imports()}
    assert ("distill", "claude") in edges  # inside functions, `from ..claude import ...`
    assert ("store", "agd") in edges
