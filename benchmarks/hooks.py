"""Hook latency and token economy.

    python3 benchmarks/hooks.py                 # both parts, markdown tables on stdout
    python3 benchmarks/hooks.py --runs 30       # more runs per cell
    python3 benchmarks/hooks.py --only latency  # or: tokens
    python3 benchmarks/hooks.py --only latency --baseline ../before  # both, one run

1. Latency: end-to-end time of a hook as Claude Code runs it (`sh hooks/run <event>`,
   payload on stdin, process start to exit with its output read), for SessionStart and
   UserPromptSubmit, on `mem-1000.agd` and a generated 10,000-block memory. Each cell is
   the median of N runs after warm-up runs (warm OS and parse caches), and is reported as
   the difference to bare `python3 -c pass` measured in the same run, interleaved, so
   machine noise hits both alike. Targets: <= 40 ms over bare start-up at 1,000 blocks,
   <= 100 ms at 10,000. CPU time (user + system, of the whole process tree) is reported
   too: on a busy machine wall time stretches, CPU time much less. `hooks/run` starts
   Python with `-S` (no site-packages), so the hook skips start-up work that bare
   `python3 -c pass` does; the last column subtracts `python3 -S -c pass` instead, which
   is the time our code adds to an interpreter start.
2. Token economy on every corpus in the shared corpora folder: the whole file vs the
   table of contents the SessionStart hook injects (its budget applies) vs that TOC plus
   1 and plus 3 blocks (the first memory blocks in document order, as AGD text). Counts
   are cl100k when `agd.tokens` can load its offline vocabulary, else its labelled
   estimate (the table says which).
3. Shim (`--only shim`): UserPromptSubmit on `mem-1000.agd` with a version-manager-like
   `python3` first on PATH (a shell script that sleeps 0.2 s, then execs the real
   interpreter, as pyenv's shim does): the first run, with no `python-path` remembered in
   the data folder (removed before each timed run), against later runs, which start the
   interpreter `hooks/run` remembered.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
CORPORA = Path(os.environ.get("AGD_BENCH_CORPORA", REPO / "tests" / "data" / "corpora"))
RUNNER = REPO / "hooks" / "run"

PROMPT_1K = "Which milestone spike decided the naming convention and the tooling trade-off?"
PROMPT_10K = "Which milestone spike decided the naming convention and the tooling trade-off?"

KINDS = (("x-user", 0.10), ("x-feedback", 0.40), ("x-project", 0.35), ("x-reference", 0.15))
TOPICS = (
    "deploy pipeline", "database schema", "code review", "naming convention", "test style",
    "release train", "api gateway", "cache policy", "logging format", "error budget",
    "feature flags", "mobile build", "search index", "billing export", "auth tokens",
    "queue workers", "backup restore", "style guide", "milestone spike", "tooling choice",
)  # fmt: skip
LINES = (
    "Decision taken after discussion; the reason is recorded in the body.",
    "Operational constraint: something breaks when it is not respected.",
    "Style preference: do it this way, never the other, always.",
    "Anti-pattern found in the past; avoid bringing it back in a hurry.",
    "Trade-off accepted on purpose; do not reopen it without new data.",
    "Naming convention used across the codebase for consistency.",
    "Tooling choice: this tool covers the case, alternatives rejected.",
    "Collaboration rule we do not want to forget halfway through.",
)


KEY_POOL = sorted({w.strip(".,:;").lower() for line in LINES for w in line.split() if len(w) > 3})
"""Words the generated search keys are drawn from (every entry has 10 keys, as writers
now produce them)."""


def generate_memory(n_blocks: int, *, seed: int = 42) -> str:
    """A deterministic memory of `n_blocks` entries in the plugin's file shape."""
    rng = random.Random(seed)
    kinds = [k for k, _ in KINDS]
    weights = [w for _, w in KINDS]
    out = [
        "@meta format=agd version=1 [#meta]",
        "",
        "@h1 Project memory [#root]",
        "",
    ]
    ids: list[str] = []
    for i in range(1, n_blocks + 1):
        kind = rng.choices(kinds, weights)[0]
        topic = rng.choice(TOPICS)
        block_id = f"{kind[2:]}-{topic.replace(' ', '-')}-{i:05d}"
        attrs = [f'desc="{topic} ({i})"', f'created="2026-{1 + i % 12:02d}-{1 + i % 28:02d}"']
        attrs.append('keys="' + ", ".join(rng.sample(KEY_POOL, 10)) + '"')
        if ids and rng.random() < 0.3:
            refs = rng.sample(ids[-50:], k=min(len(ids[-50:]), rng.randint(1, 2)))
            attrs.append('refs="' + ",".join("#" + r for r in refs) + '"')
        if rng.random() < 0.1:
            attrs.append("status=open")
        body = [rng.choice(LINES) for _ in range(rng.randint(2, 5))]
        out += [f"@{kind} {' '.join(attrs)} [#{block_id}]", "~~~", *body, "~~~", ""]
        ids.append(block_id)
    return "\n".join(out)


# -- latency ------------------------------------------------------------------------------


def _cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _time_once(argv: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, float, bytes]:
    """(wall seconds, CPU seconds of the process tree, stdout) of one run."""
    cpu = _cpu_children()
    start = time.perf_counter()
    proc = subprocess.run(argv, input=stdin, env=env, capture_output=True, check=False)
    return time.perf_counter() - start, _cpu_children() - cpu, proc.stdout


def _env(home: Path, memory: Path, root: Path = REPO) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGD_", "CLAUDE"))}
    # Claude Code runs hooks with bytecode caching on: without it, a module edited since
    # its .pyc was written is compiled from source in every timed run.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(
        HOME=str(home),
        CLAUDE_PLUGIN_ROOT=str(root),
        # one data folder per checkout: their caches may differ in format
        CLAUDE_PLUGIN_DATA=str(home / ("plugin-data" if root == REPO else "plugin-data-base")),
        AGD_MEMORY_FILE=str(memory),
        AGD_MEMORY_GLOBAL_FILE=str(home / "no-global.agd"),
        # no detached keys run for the corpus' keyless entries during the timed runs
        AGD_DISTILL_KEYS_EVERY_S="0",
    )
    # As on a machine where the MCP launcher found the SDK: SessionStart starts no
    # background install (agd_memory/mcp/sdk.py) inside the timed runs.
    data = Path(env["CLAUDE_PLUGIN_DATA"])
    data.mkdir(parents=True, exist_ok=True)
    (data / "venv-not-needed").write_text(sys.executable + "\n", encoding="utf-8")
    return env


def measure_latency(
    runs: int, warmup: int, baseline: Path | None = None
) -> list[dict[str, object]]:
    """Each cell timed for this checkout and, with `baseline`, for that checkout too, the
    runs of both and of the bare interpreters interleaved (machine noise hits all alike)."""
    trees = [("this tree", REPO)] + ([("baseline", baseline)] if baseline is not None else [])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        project = home / "project"
        project.mkdir()
        big = home / "mem-10000.agd"
        big.write_text(generate_memory(10_000), encoding="utf-8")
        small = home / "mem-gen-1000.agd"
        small.write_text(generate_memory(1_000), encoding="utf-8")
        cells = [
            ("mem-1000.agd", CORPORA / "mem-1000.agd", PROMPT_1K),
            # the same generator at both sizes: how the cost grows with the memory alone
            ("generated 1,000 blocks", small, PROMPT_10K),
            ("generated 10,000 blocks", big, PROMPT_10K),
        ]
        bare = [sys.executable, "-c", "pass"]
        bare_no_site = [sys.executable, "-S", "-c", "pass"]  # what hooks/run starts
        for label, memory, prompt in cells:
            payloads = {
                "session-start": {
                    "hook_event_name": "SessionStart",
                    "source": "startup",
                    "cwd": str(project),
                },
                "prompt": {
                    "hook_event_name": "UserPromptSubmit",
                    "prompt": prompt,
                    "cwd": str(project),
                },
            }
            for event, payload in payloads.items():
                # each run a session of its own, as a new conversation's first prompt: the
                # hook reads its record of the session (none yet) and appends to it
                def stdin_of(n: int, payload: dict = payload) -> bytes:
                    return json.dumps({**payload, "session_id": f"bench-{n}"}).encode()

                stdin = stdin_of(0)
                # each checkout's own runner (how it starts and ends the interpreter is
                # part of the hook's cost); CLAUDE_PLUGIN_ROOT picks the code it runs
                runs_of = {
                    name: (["sh", str(root / "hooks" / "run"), event], _env(home, memory, root))
                    for name, root in trees
                }
                for _ in range(warmup):
                    for argv, env in runs_of.values():
                        _time_once(argv, stdin, env)
                    _time_once(bare, b"", runs_of["this tree"][1])
                times: dict[str, tuple[list[float], list[float]]] = {
                    name: ([], []) for name in [*runs_of, "bare", "bare -S"]
                }
                outs: dict[str, bytes] = {}
                for n in range(runs):
                    for name, (argv, env) in runs_of.items():
                        t, c, outs[name] = _time_once(argv, stdin_of(n + 1), env)
                        times[name][0].append(t)
                        times[name][1].append(c)
                    for name, argv in (("bare", bare), ("bare -S", bare_no_site)):
                        t, c, _ = _time_once(argv, b"", runs_of["this tree"][1])
                        times[name][0].append(t)
                        times[name][1].append(c)

                def med(name: str, i: int, times: dict = times) -> float:
                    return statistics.median(times[name][i]) * 1000

                for name in runs_of:
                    rows.append(
                        {
                            "tree": name,
                            "memory": label,
                            "event": "SessionStart"
                            if event == "session-start"
                            else "UserPromptSubmit",
                            "hook_ms": med(name, 0),
                            "bare_ms": med("bare", 0),
                            "over_bare_ms": med(name, 0) - med("bare", 0),
                            "over_bare_no_site_ms": med(name, 0) - med("bare -S", 0),
                            "cpu_over_bare_ms": med(name, 1) - med("bare", 1),
                            "cpu_over_bare_no_site_ms": med(name, 1) - med("bare -S", 1),
                            "output_chars": len(_context(outs[name])),
                            "target_ms": 100 if "10,000" in label else 40,
                        }
                    )
    return rows


SHIM_SLEEP_S = 0.2


def measure_shim(runs: int, warmup: int) -> list[dict[str, object]]:
    """Median wall ms of the prompt hook with a sleeping `python3` shim first on PATH: the
    first run (nothing remembered) and later runs (the real interpreter remembered)."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        (home / "project").mkdir()
        shims = home / "shims"
        shims.mkdir()
        shim = shims / "python3"
        shim.write_text(f'#!/bin/sh\nsleep {SHIM_SLEEP_S}\nexec "{sys.executable}" "$@"\n')
        shim.chmod(0o755)
        env = _env(home, CORPORA / "mem-1000.agd")
        env["PATH"] = f"{shims}{os.pathsep}{env.get('PATH', '')}"
        remembered = Path(env["CLAUDE_PLUGIN_DATA"]) / "python-path"
        payload = {"hook_event_name": "UserPromptSubmit", "prompt": PROMPT_1K}
        stdin = json.dumps({**payload, "cwd": str(home / "project")}).encode()
        argv = ["sh", str(RUNNER), "prompt"]
        for _ in range(warmup):
            _time_once(argv, stdin, env)
        first: list[float] = []
        later: list[float] = []
        bare: list[float] = []
        for _ in range(runs):
            remembered.unlink(missing_ok=True)
            first.append(_time_once(argv, stdin, env)[0])
            later.append(_time_once(argv, stdin, env)[0])
            bare.append(_time_once([sys.executable, "-c", "pass"], b"", env)[0])
        kept = remembered.read_text(encoding="utf-8").strip()
    return [
        {"run": "first (no python-path)", "hook_ms": statistics.median(first) * 1000},
        {"run": f"later (python-path = {kept})", "hook_ms": statistics.median(later) * 1000},
        {
            "run": "bare `python3 -c pass` (real interpreter)",
            "hook_ms": statistics.median(bare) * 1000,
        },
    ]


def shim_table(rows: list[dict[str, object]]) -> str:
    lines = [
        f"UserPromptSubmit, mem-1000.agd, a `python3` shim that sleeps {SHIM_SLEEP_S} s first "
        "on PATH.",
        "",
        "| run | wall ms |",
        "| --- | ---: |",
    ]
    lines += [f"| {r['run']} | {r['hook_ms']:.1f} |" for r in rows]
    return "\n".join(lines)


def _context(stdout: bytes) -> str:
    if not stdout.strip():
        return ""
    return json.loads(stdout)["hookSpecificOutput"]["additionalContext"]


# -- tokens -------------------------------------------------------------------------------


def _counter():
    """(count function, label): `agd.tokens` (cl100k when its offline vocabulary loads)."""
    from agd import tokens

    return tokens.count, tokens.encoding_name()


def measure_tokens() -> tuple[list[dict[str, object]], str]:
    from agd_memory import store, toc
    from agd_memory.settings import Settings

    count, label = _counter()
    settings = Settings.load({"HOME": tempfile.gettempdir()})
    rows = []
    for path in sorted(CORPORA.glob("*.agd")):
        text = path.read_text(encoding="utf-8")
        mf = store.MemoryFile(path, layer="project", settings=settings)
        toc_text = toc.render([mf], settings)  # as SessionStart does
        blocks = [e for e in mf.entries() if e.is_memory]
        one = toc_text + "\n" + "".join(e.to_agd(drop=("keys",)) for e in blocks[:1])
        three = toc_text + "\n" + "".join(e.to_agd(drop=("keys",)) for e in blocks[:3])
        whole = count(text)
        rows.append(
            {
                "corpus": path.name,
                "blocks": len(blocks),
                "whole": whole,
                "toc": count(toc_text),
                "toc_1": count(one),
                "toc_3": count(three),
                "ratio_toc_1": whole / max(1, count(one)),
            }
        )
    return rows, label


# -- output -------------------------------------------------------------------------------


def latency_table(rows: list[dict[str, object]]) -> str:
    lines = [
        "| tree | memory | hook | wall ms | bare wall ms | over bare ms | target | "
        "CPU over bare ms | wall over bare `-S` ms | CPU over bare `-S` ms | context chars |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        ok = "ok" if r["over_bare_ms"] <= r["target_ms"] else "missed"
        lines.append(
            f"| {r['tree']} | {r['memory']} | {r['event']} | {r['hook_ms']:.1f} | "
            f"{r['bare_ms']:.1f} | "
            f"{r['over_bare_ms']:.1f} | <= {r['target_ms']} ({ok}) | "
            f"{r['cpu_over_bare_ms']:.1f} | {r['over_bare_no_site_ms']:.1f} | "
            f"{r['cpu_over_bare_no_site_ms']:.1f} | {r['output_chars']:,} |"
        )
    return "\n".join(lines)


def token_table(rows: list[dict[str, object]], label: str) -> str:
    lines = [
        f"Tokens: {label}.",
        "",
        "| corpus | blocks | whole file | TOC | TOC + 1 block | TOC + 3 blocks | whole / (TOC + 1) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(
            f"| {r['corpus']} | {r['blocks']:,} | {r['whole']:,} | {r['toc']:,} | "
            f"{r['toc_1']:,} | {r['toc_3']:,} | {r['ratio_toc_1']:.1f}x |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="measured runs per cell (median)")
    parser.add_argument("--warmup", type=int, default=3, help="unmeasured runs per cell first")
    parser.add_argument("--only", choices=("latency", "tokens", "shim"))
    parser.add_argument("--json", action="store_true", help="print the raw rows as JSON")
    parser.add_argument(
        "--baseline",
        type=Path,
        help="another checkout (e.g. the commit before a change) timed in the same run",
    )
    args = parser.parse_args(argv)
    result: dict[str, object] = {"python": sys.version.split()[0], "cpus": os.cpu_count()}
    if args.only in (None, "latency"):
        result["latency"] = measure_latency(args.runs, args.warmup, args.baseline)
    if args.only in (None, "tokens"):
        result["tokens"], result["token_method"] = measure_tokens()
    if args.only in (None, "shim"):
        result["shim"] = measure_shim(args.runs, args.warmup)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"Python {result['python']}, {result['cpus']} CPUs.\n")
    if "latency" in result:
        print(f"Median of {args.runs} runs after {args.warmup} warm-up runs.\n")
        print(latency_table(result["latency"]) + "\n")
    if "tokens" in result:
        print(token_table(result["tokens"], str(result["token_method"])))
    if "shim" in result:
        print("\n" + shim_table(result["shim"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
