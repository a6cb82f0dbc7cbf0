"""MCP server benchmark: start-up time and per-call latency on a 1,000-block memory.

    python3 benchmarks/mcp.py [--runs 15] [--calls 40] [--corpus PATH]

Start-up is wall time from spawning the server to reading its `initialize`
reply, which is what a client waits for (Claude Code gives up after
MCP_TIMEOUT, 30 s by default); it is shown beside `python3 -c pass` and the SDK
import alone. Per-call latency is the round trip of one `tools/call` over the
real stdio pipes, on a copy of `mem-1000.agd` as the project layer: median and
95th percentile. Needs the MCP SDK (`mcp>=2,<3`) in this interpreter.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LAUNCHER = ROOT / "bin" / "agd-memory-mcp"
CORPUS = Path(
    os.environ.get("AGD_BENCH_CORPUS", ROOT / "tests" / "data" / "corpora" / "mem-1000.agd")
)

INITIALIZE = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "agd-memory-bench", "version": "0"},
}


class Server:
    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
            text=True,
        )
        self.n = 0

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.n += 1
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(
            json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params}) + "\n"
        )
        self.proc.stdin.flush()
        while True:
            msg = json.loads(self.proc.stdout.readline())
            if msg.get("id") == self.n:
                return msg

    def notify(self, method: str) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}) + "\n")
        self.proc.stdin.flush()

    def close(self) -> None:
        self.proc.communicate(timeout=30)


def env_for(project_file: Path, global_file: Path, data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGD_", "CLAUDE_"))}
    env.update(
        AGD_MEMORY_FILE=str(project_file),
        AGD_MEMORY_GLOBAL_FILE=str(global_file),
        AGD_MEMORY_HOME=str(data / "home"),
        CLAUDE_PLUGIN_DATA=str(data),
        AGD_MEMORY_TODAY="2026-06-25",
    )
    return env


def timed(argv: list[str], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(argv, check=True)
        out.append(time.perf_counter() - t)
    return out


def startup(argv: list[str], env: dict[str, str], cwd: Path, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        server = Server(argv, env, cwd)
        reply = server.request("initialize", INITIALIZE)
        out.append(time.perf_counter() - t)
        assert reply["result"]["serverInfo"]["name"] == "agd-memory"
        server.close()
    return out


def fmt(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return f"median {statistics.median(ms):7.1f} ms   p95 {p95:7.1f} ms   (n={len(ms)})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="server starts to time")
    parser.add_argument("--calls", type=int, default=40, help="calls per tool")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="agd-mcp-bench-"))
    try:
        project_file = tmp / "memory.agd"
        shutil.copyfile(args.corpus, project_file)
        env = env_for(project_file, tmp / "global.agd", tmp / "data")
        ids = [
            line.split("[#", 1)[1].rstrip("]\n")
            for line in project_file.open()
            if line.startswith("@x-")
        ]

        print(
            f"# agd-memory MCP server, {sys.version.split()[0]}, corpus {args.corpus.name} ({len(ids)} blocks)"
        )
        print(
            f"python3 -c pass                  {fmt(timed([sys.executable, '-c', 'pass'], args.runs))}"
        )
        sdk = [sys.executable, "-c", "from mcp.server import MCPServer"]
        print(f"import the SDK (mcp.server)      {fmt(timed(sdk, args.runs))}")
        launcher = [sys.executable, str(LAUNCHER)]
        print(f"start-up: spawn -> initialize    {fmt(startup(launcher, env, tmp, args.runs))}")
        verb = [sys.executable, str(ROOT / "bin" / "agd-memory"), "mcp"]
        print(f"start-up via `agd-memory mcp`    {fmt(startup(verb, env, tmp, args.runs))}")

        server = Server(launcher, env, tmp)
        server.request("initialize", INITIALIZE)
        server.notify("notifications/initialized")
        mid = ids[len(ids) // 2]
        calls: list[tuple[str, str, Any]] = [
            ("toc (first page of 50)", "agd_memory_toc", lambda i: {}),
            (
                "toc (page 10, kind filter)",
                "agd_memory_toc",
                lambda i: {"kind": "x-project", "offset": 450},
            ),
            ("search (2 words)", "agd_memory_search", lambda i: {"query": "vincolo operativo"}),
            ("get (1 id)", "agd_memory_get", lambda i: {"id": ids[(i * 37) % len(ids)]}),
            ("get (5 ids)", "agd_memory_get", lambda i: {"ids": ids[i % 900 : i % 900 + 5]}),
            (
                "get (refs depth 2 + backlinks)",
                "agd_memory_get",
                lambda i: {"id": mid, "follow_refs": True, "depth": 2, "with_backlinks": True},
            ),
            (
                "save (new block)",
                "agd_memory_save",
                lambda i: {
                    "kind": "x-project",
                    "id": f"bench-{i}",
                    "content": f"Benchmark block {i}, cites #{mid}.",
                },
            ),
            (
                "save (update)",
                "agd_memory_save",
                lambda i: {"kind": "x-project", "id": "bench-0", "content": f"Updated {i}."},
            ),
        ]
        for label, name, make in calls:
            samples = []
            for i in range(args.calls):
                t = time.perf_counter()
                reply = server.request("tools/call", {"name": name, "arguments": make(i)})
                samples.append(time.perf_counter() - t)
                if reply["result"].get("isError"):
                    raise SystemExit(f"{label}: {reply['result']['content'][0]['text']}")
            print(f"{label:32} {fmt(samples)}")
        server.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
