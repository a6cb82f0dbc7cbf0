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
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
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


def start_viewer(env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "bin" / "agd-memory"),
            "view",
            "--no-open",
            "--port",
            "0",
            "--idle-exit",
            "120",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **env},
        text=True,
    )
    url = proc.stdout.readline().strip()
    if not url.startswith("http://127.0.0.1:"):
        proc.kill()
        raise SystemExit(f"the viewer did not start: {url!r}")
    return proc, url


def fetch(url: str) -> tuple[float, int]:
    t0 = time.perf_counter()
    with urllib.request.urlopen(url) as resp:
        size = len(resp.read())
    return (time.perf_counter() - t0) * 1000, size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp_name:
        proc, url = start_viewer(build_home(Path(tmp_name), args.blocks))
        try:
            first_ms, size = fetch(url + "memory.json")
            warm = [fetch(url + "memory.json")[0] for _ in range(args.runs)]
            count = json.loads(urllib.request.urlopen(url + "memory.json").read())["stats"][
                "blocks"
            ]
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
        finally:
            proc.terminate()
            proc.wait(timeout=10)

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
