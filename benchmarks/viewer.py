"""Viewer: time to first render of a 2,000-block memory in headless Chromium.

Builds a synthetic home folder (a 2,000-block project memory, 40 % of blocks with
refs, plus a 52-block global layer), starts the viewer as users do
(`bin/agd-memory view --no-open`, its own process), and loads the page in Debian's Chromium through Playwright, each run in a fresh
browser context (no cache). Reported, as medians over the runs:

- server: `/memory.json` time and size (the first request reads the file, later ones the store's cache)
- first render: navigation start -> read view built (`agd-first-render` mark) and painted
  (`agd-first-paint`, the next frame)
- search: one palette query over every block, in the page
- graph: opening the graph view (cytoscape build + cose layout of the linked blocks)

    python3 benchmarks/viewer.py [--blocks 2000] [--runs 5]

`--concurrent N` measures the server alone instead (no browser): rounds of N simultaneous
`/memory.json` requests on a fresh viewer, the first round right after start-up (nothing
cached), then `--runs` more; per round the slowest request (wall) and the server's CPU time
(Linux `/proc`). `--root` runs the viewer of another checkout (e.g. the starting commit), so
before and after are measured by the same script:

    python3 benchmarks/viewer.py --blocks 50000 --concurrent 20 --runs 3 [--root /work/baseline]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
KINDS = ("x-user", "x-feedback", "x-project", "x-reference")
WORDS = [
    "invoice",
    "counter",
    "postgres",
    "deploy",
    "pipeline",
    "review",
    "commit",
    "migration",
    "cache",
    "token",
    "budget",
    "recall",
    "layer",
    "graph",
    "anchor",
    "schema",
    "test",
    "fixture",
    "release",
    "rollback",
    "lock",
    "file",
    "format",
]


def memory_text(n: int, prefix: str, seed: int) -> str:
    rnd = random.Random(seed)
    lines = ["@meta format=agd version=1 [#meta]", "", f"@h1 Benchmark memory {prefix} [#root]", ""]
    for kind in KINDS:
        lines += [f"@h2 {kind[2:].title()} [#h-{kind[2:]}]", ""]
        for i in range(n // len(KINDS)):
            number = KINDS.index(kind) * (n // len(KINDS)) + i
            ident = f"{prefix}-{kind[2:]}-{i:04d}"
            attrs = [
                f'desc="{" ".join(rnd.sample(WORDS, 5))} ({number})"',
                f'created="2026-{1 + i % 12:02d}-{1 + i % 28:02d}"',
            ]
            if i > 0 and rnd.random() < 0.4:
                targets = {
                    f"#{prefix}-{kind[2:]}-{rnd.randrange(i):04d}" for _ in range(rnd.randint(1, 2))
                }
                attrs.append(f'refs="{",".join(sorted(targets))}"')
            if rnd.random() < 0.05:
                attrs.append('status="superseded"')
            body = "\n".join(" ".join(rnd.choices(WORDS, k=12)) + "." for _ in range(3))
            lines += [f"@{kind} {' '.join(attrs)} [#{ident}]", "~~~", body, "~~~", ""]
    return "\n".join(lines)


def build_home(tmp: Path, blocks: int) -> dict[str, str]:
    home = tmp / "home"
    project = home / ".claude" / "projects" / "-bench-app" / "memory" / "memory.agd"
    project.parent.mkdir(parents=True)
    project.write_text(memory_text(blocks, "p", 1), encoding="utf-8")
    global_ = home / ".claude" / "memory" / "global.agd"
    global_.parent.mkdir(parents=True)
    global_.write_text(memory_text(52, "g", 2), encoding="utf-8")
    return {
        "HOME": str(home),
        "AGD_MEMORY_HOME": str(home),
        "AGD_MEMORY_FILE": str(project),
        "CLAUDE_PLUGIN_DATA": str(tmp / "data"),
    }


@contextlib.contextmanager
def running_viewer(blocks: int, root: Path = ROOT) -> Iterator[tuple[subprocess.Popen, str]]:
    """The viewer of checkout `root` in its own process, as users start it, over a temporary
    home with a `blocks`-block project memory; yields the process and its URL."""
    with tempfile.TemporaryDirectory() as tmp_name:
        yield from _viewer(build_home(Path(tmp_name), blocks), root)


def _viewer(env: dict[str, str], root: Path) -> Iterator[tuple[subprocess.Popen, str]]:
    proc = subprocess.Popen(
        [
            sys.executable,
            str(root / "bin" / "agd-memory"),
            "view",
            "--no-open",
            "--port",
            "0",
            "--idle-exit",
            "120",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **env, "PYTHONPATH": str(root / "src")},
        text=True,
    )
    url = proc.stdout.readline().strip()
    if not url.startswith("http://127.0.0.1:"):
        proc.kill()
        raise SystemExit(f"the viewer did not start: {url!r}")
    try:
        yield proc, url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def fetch(url: str) -> tuple[float, int]:
    t0 = time.perf_counter()
    with urllib.request.urlopen(url) as resp:
        size = len(resp.read())
    return (time.perf_counter() - t0) * 1000, size


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process so far (Linux), None elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid: int) -> float | None:
    """The process's peak resident memory (Linux `VmHWM`), None elsewhere."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    line = next((x for x in status.splitlines() if x.startswith("VmHWM:")), None)
    return int(line.split()[1]) / 1024 if line else None


def concurrent_round(url: str, n: int) -> tuple[list[float], float]:
    """Start `n` `/memory.json` requests at once: the seconds each took, and the seconds one
    `/version.json` (the page's poll) took when sent half a second into the round."""
    times: list[float] = [0.0] * n
    start = threading.Barrier(n + 1)
    probe: list[float] = []

    def poll() -> None:
        start.wait()
        time.sleep(0.5)
        t0 = time.perf_counter()
        with urllib.request.urlopen(url + "version.json", timeout=600) as resp:
            resp.read()
        probe.append(time.perf_counter() - t0)

    def one(i: int) -> None:
        start.wait()
        t0 = time.perf_counter()
        with urllib.request.urlopen(url + "memory.json", timeout=600) as resp:
            resp.read()
        times[i] = time.perf_counter() - t0

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    threads.append(threading.Thread(target=poll))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return times, probe[0]


def concurrent(args: argparse.Namespace) -> int:
    with running_viewer(args.blocks, args.root) as (proc, url):
        rounds = []
        for _ in range(1 + args.runs):
            cpu0, t0 = cpu_seconds(proc.pid), time.perf_counter()
            times, poll = concurrent_round(url, args.concurrent)
            wall, cpu1 = time.perf_counter() - t0, cpu_seconds(proc.pid)
            cpu = cpu1 - cpu0 if cpu0 is not None and cpu1 is not None else float("nan")
            rounds.append((wall, statistics.median(times), max(times), cpu, poll))
        size = fetch(url + "memory.json")[1]
        rss = peak_rss_mb(proc.pid)
    med = statistics.median
    print(
        f"viewer benchmark: {args.concurrent} concurrent /memory.json, {args.blocks} project "
        f"blocks + 52 global ({size / 1e6:.1f} MB of JSON), viewer of {args.root}"
    )
    for label, rows in (
        ("first round (cold)", rounds[:1]),
        (f"next {args.runs}, medians", rounds[1:]),
    ):
        if rows:
            print(
                f"  {label:<20} wall {med(r[0] for r in rows):6.2f} s, per request median "
                f"{med(r[1] for r in rows):6.2f} s / max {med(r[2] for r in rows):6.2f} s, "
                f"server CPU {med(r[3] for r in rows):6.2f} s, one /version.json meanwhile "
                f"{med(r[4] for r in rows) * 1000:5.0f} ms"
            )
    if rss is not None:
        print(f"  server peak RSS      {rss:.0f} MB")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--concurrent",
        type=int,
        default=0,
        metavar="N",
        help="N simultaneous /memory.json, no browser",
    )
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose viewer runs")
    args = parser.parse_args()
    if args.concurrent:
        return concurrent(args)
    from playwright.sync_api import sync_playwright

    with running_viewer(args.blocks, args.root) as (_, url):
        first_ms, size = fetch(url + "memory.json")
        warm = [fetch(url + "memory.json")[0] for _ in range(args.runs)]
        count = json.loads(urllib.request.urlopen(url + "memory.json").read())["stats"]["blocks"]
        render, paint, search, graph = [], [], [], []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            for _ in range(args.runs):
                context = browser.new_context(viewport={"width": 1400, "height": 900})
                page = context.new_page()
                page.goto(url)
                page.wait_for_function(
                    "() => performance.getEntriesByName('agd-first-paint').length > 0",
                    timeout=60_000,
                )
                marks = page.evaluate(
                    "['agd-first-render', 'agd-first-paint'].map(n => performance.getEntriesByName(n)[0].startTime)"
                )
                render.append(marks[0])
                paint.append(marks[1])
                page.keyboard.press("Control+k")
                search.append(
                    page.evaluate(
                        """() => { const i = document.getElementById('palette-input'); const t0 = performance.now();
                            i.value = 'rollback schema'; i.dispatchEvent(new Event('input'));
                            return performance.now() - t0; }"""
                    )
                )
                page.keyboard.press("Escape")
                graph.append(
                    page.evaluate(
                        """() => { const t0 = performance.now();
                            document.querySelector('[data-view=graph]').click();
                            const mark = (n) => performance.getEntriesByName(n)[0].startTime;
                            return [performance.now() - t0, mark('agd-graph-created') - mark('agd-graph-start'),
                                    mark('agd-graph-built') - mark('agd-graph-created')]; }"""
                    )
                )
                context.close()
            browser.close()

    med = statistics.median
    print(
        f"viewer benchmark: {count} blocks ({args.blocks} project + global), {args.runs} runs, medians"
    )
    print(
        f"  /memory.json        first {first_ms:.0f} ms, then {med(warm):.0f} ms, {size / 1024:.0f} KB"
    )
    print(f"  first render (DOM)  {med(render):.0f} ms from navigation start")
    print(f"  first render (paint){med(paint):>5.0f} ms from navigation start")
    print(f"  search, one query   {med(search):.1f} ms")
    print(
        f"  graph view opened   {med(g[0] for g in graph):.0f} ms "
        f"(cytoscape {med(g[1] for g in graph):.0f} ms, layout {med(g[2] for g in graph):.0f} ms)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
