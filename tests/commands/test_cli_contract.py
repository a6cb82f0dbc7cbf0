"""The one error contract of both commands, every verb: usage errors, bounded reads, no tracebacks."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agd_memory import cli

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src"
@pytest.mark.parametrize("verb", sorted(cli.VERBS))
def test_every_agd_memory_verb_rejects_a_bogus_flag_with_its_own_usage(verb, capsys, env) -> None:
    assert cli.main([verb, "--bogus"]) == 2
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert out == ""
    assert lines[0].startswith(f"usage: agd-memory {verb} "), err
    assert lines[-1].startswith(f"agd-memory {verb}: error: "), err
    assert "Traceback" not in err


def test_an_unexpected_error_is_one_line_unless_debugging(monkeypatch, capsys, env) -> None:
    from agd_memory.commands import store

    def broken(argv: list[str]) -> int:
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(store, "where", broken)
    assert cli.main(["where"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ZeroDivisionError: boom" in err and "AGD_MEMORY_DEBUG=1" in err
    monkeypatch.setenv("AGD_MEMORY_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        cli.main(["where"])


# ---- the import graph of src/


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, name: str) -> set[str]:
    """Every module of ours `path` imports, at the top or inside a function."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def import_graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in SRC.rglob("*.py")}
    return {
        name: {m for m in _imports(path, name) if m in files and m != name}
        for name, path in files.items()
    }


def _is_package_of(a: str, b: str) -> bool:
    return b.startswith(a + ".")


def test_src_has_no_import_cycles() -> None:
    graph = import_graph()
    # a package's __init__ importing its own submodules (and they it) is how packages
    # re-export; a cycle that needs that edge is not a design circle
    edges = {
        a: {b for b in bs if not _is_package_of(a, b) and not _is_package_of(b, a)}
        for a, bs in graph.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    assert cycles == []


def test_only_the_cli_layer_imports_the_cli_layer() -> None:
    layer = ("agd_memory.commands", "agd_memory.cli")
    offenders = {
        name: sorted(m for m in deps if m.startswith(layer))
        for name, deps in import_graph().items()
        if not name.startswith(layer)
    }
    assert {k: v for k, v in offenders.items() if v} == {}


# ---- bounded reads of user-named files (a regression hangs: every run has a timeout)


def run(*args: str, env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], input=stdin, env=env, capture_output=True, text=True, timeout=60
    )


@pytest.fixture
def proc_env(env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    memory = tmp_path / "memory.agd"
    monkeypatch.setenv("AGD_MEMORY_FILE", str(memory))
    assert (
        cli.main(
            [
                "save",
                "x-project",
                "db",
                "--desc",
                "database",
                "--content",
                "We use Postgres 16 for billing.",
            ]
        )
        == 0
    )
    return {**os.environ, "AGD_MEMORY_FILE": str(memory), "PYTHONPATH": str(SRC)}


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("source", ["fifo", "/dev/zero"])
def test_content_file_that_is_not_a_regular_file_is_refused_at_once(source, fifo, proc_env) -> None:
    path = str(fifo) if source == "fifo" else source
    r = run(
        str(REPO / "bin/agd-memory"), "save", "x-project", "n", "--content-file", path, env=proc_env
    )
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and "--content-file: reading" in r.stderr
    assert "not a regular file" in r.stderr


def test_content_file_over_the_memory_limit_is_refused(tmp_path, proc_env) -> None:
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * (1024 * 1024 + 1))
    r = run(
        str(REPO / "bin/agd-memory"),
        "save",
        "x-project",
        "n",
        "--content-file",
        str(big),
        env=proc_env,
    )
    assert r.returncode == 1 and "larger than 1 MiB" in r.stderr
    assert "#n" not in Path(proc_env["AGD_MEMORY_FILE"]).read_text()


@pytest.mark.parametrize("verb", ["parse", "validate", "format", "ids", "bench"])
def test_agd_file_argument_fifo_is_refused_at_once(verb, fifo, proc_env) -> None:
    r = run(str(REPO / "bin/agd"), verb, str(fifo), env=proc_env)
    assert (r.returncode, r.stderr) == (
        1,
        f"agd: reading {fifo}: not a regular file (a folder, FIFO or device); give a file\n",
    )


def test_keys_from_a_fifo_is_refused_at_once(fifo, proc_env) -> None:
    r = run(str(REPO / "bin/agd-memory"), "keys", "--from", str(fifo), "--all", env=proc_env)
    assert r.returncode == 1 and "not a regular file" in r.stderr and r.stderr.count("\n") == 1


@pytest.mark.parametrize("where", [".claude/agd-memory/config.json", "legacy recall.json"])
@pytest.mark.parametrize("config", ["[" * 100_000, "fifo"])
def test_a_hostile_recall_json_falls_back_to_the_defaults(config, where, env, proc_env) -> None:
    target = env.data / "recall.json" if where.startswith("legacy") else env.home / where
    target.parent.mkdir(parents=True, exist_ok=True)
    if config == "fifo":
        os.mkfifo(target)
    else:
        target.write_text(config)
    proc_env = {**proc_env, "CLAUDE_PLUGIN_DATA": str(target.parent)}
    for args in (["toc"], ["recall", "which database do we use for billing"], ["config", "show"]):
        r = run(str(REPO / "bin/agd-memory"), *args, env=proc_env)
        assert r.returncode == 0, (args, r.stderr)
        assert "Traceback" not in r.stderr
    payload = '{"hook_event_name": "UserPromptSubmit", "prompt": "which database for billing", "cwd": "/"}'
    r = run(str(REPO / "bin/agd-memory"), "hook", "prompt", env=proc_env, stdin=payload)
    assert r.returncode == 0 and r.stderr == ""
