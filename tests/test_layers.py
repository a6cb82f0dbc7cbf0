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


READS_ENVIRONMENT = {
    "agd_memory/settings.py": "decides every fact of the environment once (`Settings.load`)",
    "agd_memory/debuglog.py": "the debug log's own switches and folder, usable before settings",
    "agd_memory/sdkvenv.py": "the MCP launcher finds the SDK's venv before any settings exist",
    "agd_memory/claude/headless.py": "hands the environment on to the `claude -p` it runs",
    "agd_memory/maintenance/checks_env.py": "doctor: is it run by the plugin or from a shell",
}
"""Modules below the adapters that read `os.environ`, each with its reason."""


def environment_reads() -> dict[str, list[int]]:
    """file -> lines where a module below the adapters reads the environment (`os.environ`,
    `os.getenv`, `from os import environ`)."""
    found: dict[str, list[int]] = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        module = ".".join(rel.with_suffix("").parts).removesuffix(".__init__")
        name = unit(module)
        if name is None or LEVELS[name] >= LEVELS["commands"]:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            hit = (
                isinstance(node, ast.Attribute)
                and node.attr in ("environ", "environb", "getenv", "getenvb")
                and getattr(node.value, "id", "") == "os"
            ) or (
                isinstance(node, ast.ImportFrom)
                and node.module == "os"
                and any(a.name in ("environ", "getenv") for a in node.names)
            )
            if hit:
                found.setdefault(rel.as_posix(), []).append(node.lineno)
    return found


def test_nothing_below_an_entry_point_reads_the_environment() -> None:
    """The entry points build `Settings.load()` and pass it down; a module below them that
    reads `os.environ` makes a second decision about the same fact."""
    reads = environment_reads()
    assert {f: lines for f, lines in reads.items() if f not in READS_ENVIRONMENT} == {}
    assert sorted(set(READS_ENVIRONMENT) - set(reads)) == []  # fixed: take it off the list
