"""Staleness against the code: what the SessionStart check costs on a large repository.

    python3 benchmarks/hygiene.py                  # 10,000 files, 1,000 entries
    python3 benchmarks/hygiene.py --files 2000 --entries 200 --runs 5

Builds a real git repository on disk (`--files` Python files in nested folders, one
commit) and a project memory of `--entries` entries whose bodies cite code the way the
distiller writes it (a path, a line range, a `symbol()`, a bare file name; the `code=`
records made by `hygiene.citations.extract`, as a save makes them). Then times, each the
median of `--runs`:

- `extract`: recording one entry's citations (what a save adds);
- `check cold`: `staleness.check_all` with no cache (the first session start);
- `check warm`: nothing changed since the last check (every later session start);
- `check 1% edited`: 1% of the cited files rewritten since the last check;
- `hook session-start`: the whole hook as Claude Code runs it (`hooks/run`), warm,
  with the code check (payload cwd in the repository) and without it (the same memory
  file forced with `AGD_MEMORY_FILE`, payload cwd outside any repository).

and reports how many entries each check found stale (1% edited rewrites every line, so
each entry citing such a file is stale).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from agd_memory import diskcache, paths  # noqa: E402
from agd_memory.hygiene import citations, staleness  # noqa: E402
from agd_memory.settings import Settings  # noqa: E402
from agd_memory.store import MemoryFile  # noqa: E402


def module_text(n: int) -> str:
    out = [f'"""Module {n}: generated for the staleness benchmark."""', ""]
    for k in range(12):
        out += [
            f"def handler_{n}_{k}(request, limit={k}):",
            f"    value = request.get('field_{k}', {n})",
            f"    return min(value * {k + 1}, limit + {n % 97})",
            "",
        ]
    return "\n".join(out) + "\n"


def make_repo(root: Path, files: int) -> list[str]:
    rels = []
    for n in range(files):
        rel = f"src/pkg_{n % 50}/mod_{n % 7}/file_{n}.py"
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(module_text(n))
        rels.append(rel)
    git = ["git", "-C", str(root)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run(
        [*git, "-c", "user.email=b@example.com", "-c", "user.name=b", "commit", "-q", "-m", "x"],
        check=True,
    )
    return rels


def make_memory(path: Path, rels: list[str], root: Path, entries: int, rng: random.Random) -> list:
    repo = citations.Repository(root)
    blocks = ["@meta format=agd version=1 [#meta]", "", "@h1 Project memory [#root]", ""]
    times = []
    for i in range(entries):
        a, b = rng.sample(range(len(rels)), 2)
        n = int(Path(rels[a]).stem.split("_")[1])
        body = (
            f"The limit rule lives in {rels[a]}:5-7 and handler_{n}_3() applies it; "
            f"see also {rels[b]} and the note about caching, e.g. for retries."
        )
        t = time.perf_counter()
        code = citations.format_record(citations.extract(body, repo))
        times.append(time.perf_counter() - t)
        blocks += [
            f'@x-project desc="limit rule {i}" code="{code}" created=2026-01-01 [#entry-{i}]',
            "~~~",
            body,
            "~~~",
            "",
        ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(blocks))
    return times


def ms(xs: list[float]) -> str:
    return f"{statistics.median(xs) * 1000:.1f} ms"


class Timer:
    """Wall and CPU time of a step (CPU: this process and the children it waited for; on a
    shared machine wall time stretches, CPU time much less)."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def __enter__(self) -> Timer:
        self._w, self._c = time.perf_counter(), _cpu()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall.append(time.perf_counter() - self._w)
        self.cpu.append(_cpu() - self._c)


def _cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def hook_ms(cwd: Path, env: dict[str, str], runs: int) -> Timer:
    payload = f'{{"hook_event_name": "SessionStart", "cwd": "{cwd}", "source": "startup"}}'
    out = Timer()
    for n in range(runs + 2):
        with out:
            subprocess.run(
                ["sh", str(REPO / "hooks" / "run"), "session-start"],
                input=payload.encode(),
                env=env,
                capture_output=True,
                check=True,
            )
        if n < 2:  # warm-up
            out.wall.clear()
            out.cpu.clear()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--entries", type=int, default=1_000)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(19)
    tmp = Path(tempfile.mkdtemp(prefix="agd-hygiene-"))
    try:
        root = tmp / "repo"
        t = time.perf_counter()
        rels = make_repo(root, args.files)
        print(f"repository: {args.files:,} files committed in {time.perf_counter() - t:.1f} s")
        env = {
            "HOME": str(tmp / "home"),
            "AGD_MEMORY_HOME": str(tmp / "home"),
            "CLAUDE_PLUGIN_DATA": str(tmp / "data"),
            "PATH": os.environ.get("PATH", ""),
        }
        settings = Settings.load(env)
        layer = paths.resolve(settings, cwd=str(root)).project
        extract_times = make_memory(layer.path, rels, root, args.entries, rng)
        mf = MemoryFile(layer.path, layer="project", settings=settings)
        mf.entries()
        cache = diskcache.cache_path(mf.cache_dir, staleness.CACHE_KIND, f"hygiene:{mf.path}")
        rows = [("extract (one entry's citations)", ms(extract_times), "", "")]

        cold, warm, edited = Timer(), Timer(), Timer()
        found_cold = found_edit = 0
        for _ in range(args.runs):
            cache.unlink(missing_ok=True)
            with cold:
                found_cold = len(staleness.check_all([mf], root))
            with warm:
                staleness.check_all([mf], root)
        cited = sorted(
            {c.path for e in mf.entries() for c in citations.parse_record(e.attrs.get("code"))}
        )
        changed = rng.sample(cited, max(1, len(cited) // 100))
        for n, rel in enumerate(changed):
            (root / rel).write_text(
                "\n".join(f"rewritten_{n}_{k} = {k} * 2 + 1" for k in range(40))
            )
        for _ in range(args.runs):
            staleness.check_all([mf], root)
            for rel in changed:  # a new identity each round: the edited files are re-read
                os.utime(root / rel, ns=(time.time_ns(), time.time_ns()))
            with edited:
                found_edit = len(staleness.check_all([mf], root))
        rows += [
            (f"check cold ({len(cited):,} cited files)", cold, f"{found_cold} stale"),
            ("check warm (nothing changed)", warm, ""),
            (f"check with {len(changed)} cited files edited", edited, f"{found_edit} stale"),
        ]
        outside = tmp / "elsewhere"
        outside.mkdir()
        with_check = hook_ms(root, env, args.runs)
        hook_env = dict(env, AGD_MEMORY_FILE=str(layer.path))
        without = hook_ms(outside, hook_env, args.runs)
        rows += [
            ("hook session-start, with the code check", with_check, ""),
            ("hook session-start, no repository (no check)", without, ""),
        ]
        print(f"memory: {args.entries:,} entries, {args.runs} runs per row (median)\n")
        print("| step | wall | CPU | found |\n| --- | ---: | ---: | --- |")
        for row in rows:
            name, timer, note = row[0], row[1], row[2]
            if isinstance(timer, Timer):
                print(f"| {name} | {ms(timer.wall)} | {ms(timer.cpu)} | {note} |")
            else:
                print(f"| {name} | {timer} | | {note} |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
