"""Team memory on git: a simulation of clones sharing one team file, and the merge time.

    python3 benchmarks/team.py [--clones 5] [--rounds 40] [--seed 1] [--sizes 100,1000,10000]

Simulation: a bare remote and N clones on disk (real git; HOME and GIT_CONFIG_GLOBAL in a
temporary folder), each set up with `agd-memory team init`. Every round, each clone makes
random saves, edits, supersedes, renames and deletes through the CLI (`bin/agd-memory
... --scope team`) and commits; then the clones pull (alternately `--rebase` and merge)
and push in turn, pulling again when a push is rejected. At the end every clone pulls
once more. Checked: all clones hold the same file; git reported zero conflicts; no
acknowledged content was lost (every body a save acknowledged is in the final file,
unless a clone replaced, superseded-by-edit or deleted it after seeing it: an op on an
id records the body it replaced); every id saved and never deleted or renamed is present.

Merge time: `agd.merge3.merge` on base/ours/theirs texts of N entries, ours and theirs
each editing 1% of the entries, adding 10 and deleting 5, with 5 entries edited on both
sides; median wall and CPU time of 5 runs (parse of the three versions, merge, serialise;
CPU time is the figure to compare on a shared machine), and
one run of the whole driver process (`bin/agd-memory merge-driver`).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIN = REPO / "bin" / "agd-memory"
sys.path.insert(0, str(REPO / "src"))

from agd import parse  # noqa: E402
from agd.merge3 import merge  # noqa: E402


class Sim:
    def __init__(self, root: Path, clones: int, seed: int) -> None:
        self.root = root
        self.rng = random.Random(seed)
        home = root / "home"
        home.mkdir()
        self.env = {
            k: v for k, v in os.environ.items() if not k.startswith(("AGD_", "CLAUDE_", "GIT_"))
        }
        self.env.update(
            HOME=str(home),
            GIT_CONFIG_GLOBAL=str(home / ".gitconfig"),
            GIT_CONFIG_NOSYSTEM="1",
            AGD_MEMORY_HOME=str(home),
            CLAUDE_PLUGIN_DATA=str(root / "data"),
        )
        self.conflicts = 0
        self.rejected_pushes = 0
        self.ops = 0
        self.acked: set[str] = set()
        """Every body a save acknowledged."""
        self.replaced: set[str] = set()
        """Bodies a clone replaced or deleted while it held them."""
        self.saved_ids: set[str] = set()
        self.removed_ids: set[str] = set()
        """Ids some clone deleted or renamed away."""
        self.counter = 0
        self.run(["git", "init", "-q", "--bare", "-b", "main", str(root / "remote.git")], root)
        self.clones = [self.clone(f"c{i}", first=i == 0) for i in range(clones)]

    def run(
        self, cmd: list[str], cwd: Path, check: bool = True, **env: str
    ) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            cmd, cwd=cwd, env={**self.env, **env}, capture_output=True, text=True, timeout=300
        )
        if "CONFLICT" in done.stdout + done.stderr:
            self.conflicts += 1
        if check and done.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} in {cwd} failed:\n{done.stdout}{done.stderr}")
        return done

    def git(self, clone: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run(["git", *args], clone, check=check)

    def cli(self, clone: Path, day: str, *args: str) -> subprocess.CompletedProcess[str]:
        return self.run([sys.executable, str(BIN), *args], clone, check=False, AGD_MEMORY_TODAY=day)

    def clone(self, name: str, *, first: bool) -> Path:
        path = self.root / name
        self.run(["git", "clone", "-q", str(self.root / "remote.git"), str(path)], self.root)
        for key, value in (
            ("user.name", name),
            ("user.email", f"{name}@example.com"),
            ("commit.gpgsign", "false"),
        ):
            self.git(path, "config", key, value)
        if first:
            self.git(path, "checkout", "-q", "-b", "main")
        self.cli(path, "2026-01-01", "team", "init")
        if first:
            self.git(path, "add", "-A")
            self.git(path, "commit", "-q", "-m", "team memory")
            self.git(path, "push", "-q", "-u", "origin", "main")
        return path

    def entries(self, clone: Path) -> dict[str, str]:
        doc = parse((clone / ".claude" / "memory.agd").read_text(encoding="utf-8"))
        return {b.id: b.value for b in doc.blocks if b.id and b.kind.startswith("x-")}  # type: ignore[misc]

    def body(self, clone: Path, rnd: int) -> str:
        self.counter += 1
        return f"fact {self.counter} from {clone.name} in round {rnd}"

    def act(self, clone: Path, rnd: int, day: str) -> None:
        entries = self.entries(clone)
        ids = sorted(entries)
        op = self.rng.choice(["save", "save", "edit", "edit", "supersede", "rename", "delete"])
        if op != "save" and not ids:
            op = "save"
        if op in ("save", "supersede"):
            new_id = f"n{self.counter + 1}-{clone.name}"
            body = self.body(clone, rnd)
            args = ["save", "x-project", new_id, "--content", body, "--scope", "team"]
            if op == "supersede":
                args += ["--supersedes", self.rng.choice(ids)]
            if self.cli(clone, day, *args).returncode == 0:
                self.acked.add(body)
                self.saved_ids.add(new_id)
        elif op == "edit":
            target = self.rng.choice(ids)
            body = self.body(clone, rnd)
            held = entries[target]
            if (
                self.cli(
                    clone, day, "save", "x-project", target, "--content", body, "--scope", "team"
                ).returncode
                == 0
            ):
                self.acked.add(body)
                self.replaced.add(held)
        elif op == "rename":
            target = self.rng.choice(ids)
            new_id = f"r{self.counter}-{target}"[:60]
            self.counter += 1
            if self.cli(clone, day, "rename", target, new_id, "--scope", "team").returncode == 0:
                self.removed_ids.add(target)
                self.saved_ids.add(new_id)
        else:
            target = self.rng.choice(ids)
            held = entries[target]
            if self.cli(clone, day, "delete", target, "--scope", "team").returncode == 0:
                self.replaced.add(held)
                self.removed_ids.add(target)
        self.ops += 1

    def sync(self, clone: Path, index: int) -> None:
        mode = "--rebase" if index % 2 else "--no-rebase"
        for _ in range(20):
            self.git(clone, "pull", "-q", mode, "--no-edit")
            pushed = self.git(clone, "push", "-q", check=False)
            if pushed.returncode == 0:
                return
            self.rejected_pushes += 1
        raise RuntimeError(f"{clone.name}: push rejected 20 times")

    def round(self, rnd: int, ops_per_clone: int) -> None:
        day = f"2026-{1 + rnd // 28:02d}-{1 + rnd % 28:02d}"
        for clone in self.clones:
            for _ in range(self.rng.randint(1, ops_per_clone)):
                self.act(clone, rnd, day)
            self.git(clone, "add", "-A")
            if self.git(clone, "diff", "--cached", "--quiet", check=False).returncode:
                self.git(clone, "commit", "-q", "-m", f"{clone.name} round {rnd}")
        for i, clone in enumerate(self.clones):
            self.sync(clone, i)

    def finish(self) -> dict[str, object]:
        for clone in self.clones:
            self.git(clone, "pull", "-q", "--no-rebase", "--no-edit")
        texts = {(c / ".claude" / "memory.agd").read_text(encoding="utf-8") for c in self.clones}
        final = self.entries(self.clones[0])
        values = set(final.values())
        lost = sorted(self.acked - values - self.replaced)
        markers = sum("<<<<<<<" in t for t in texts)
        return {
            "converged": len(texts) == 1,
            "conflicts": self.conflicts,
            "markers": markers,
            "lost": lost,
            "missing_ids": sorted(self.saved_ids - self.removed_ids - set(final)),
            "entries": len(final),
            "superseded_copies": sum(
                1 for b in parse(next(iter(texts))).blocks if b.attrs.get("status") == "superseded"
            ),
            "ops": self.ops,
            "acked": len(self.acked),
            "rejected_pushes": self.rejected_pushes,
        }


def simulate(
    root: Path, clones: int = 5, rounds: int = 40, seed: int = 1, ops_per_clone: int = 3
) -> dict[str, object]:
    sim = Sim(root, clones, seed)
    start = time.perf_counter()
    for rnd in range(rounds):
        sim.round(rnd, ops_per_clone)
    result = sim.finish()
    result["seconds"] = round(time.perf_counter() - start, 1)
    return result


# -- merge time --------------------------------------------------------------------------


def _entry(i: int, body: str, day: str = "2026-01-01") -> str:
    return f'\n@x-project created=2026-01-01 desc="entry {i}" updated={day} [#e{i}]\n~~~\n{body}\n~~~\n'


def versions(n: int, seed: int = 7) -> tuple[str, str, str]:
    rng = random.Random(seed)
    head = "@meta format=agd version=1 [#meta]\n\n@h1 Memory [#root]\n\n@h2 Project [#h-project]\n"
    bodies = {
        i: f"fact number {i}: "
        + " ".join(rng.choice(["db", "api", "cache", "deploy", "test"]) for _ in range(30))
        for i in range(n)
    }
    both = set(rng.sample(range(n), 5))
    rest = [i for i in range(n) if i not in both]
    edits_a, edits_b = set(rng.sample(rest, n // 100)), set(rng.sample(rest, n // 100))
    gone_a, gone_b = set(rng.sample(rest, 5)) - edits_b, set(rng.sample(rest, 5)) - edits_a

    def side(name: str, edits: set[int], gone: set[int], day: str) -> str:
        out = [head, *(_entry(n + k, f"new from {name} {k}", day) for k in range(10))]
        for i in range(n):
            if i in gone:
                continue
            changed = i in edits or i in both
            out.append(
                _entry(
                    i,
                    bodies[i] + (f" edited by {name}" if changed else ""),
                    day if changed else "2026-01-01",
                )
            )
        return "".join(out)

    base = head + "".join(_entry(i, bodies[i]) for i in range(n))
    return base, side("a", edits_a, gone_a, "2026-02-01"), side("b", edits_b, gone_b, "2026-02-02")


def merge_time(n: int, runs: int = 5) -> dict[str, float]:
    base, ours, theirs = versions(n)
    times, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        merge(base, ours, theirs)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, text in (("base", base), ("ours", ours), ("theirs", theirs)):
            p = Path(tmp) / name
            p.write_text(text, encoding="utf-8")
            paths.append(str(p))
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, str(BIN), "merge-driver", *paths, "memory.agd"],
            check=True,
            capture_output=True,
        )
        process = time.perf_counter() - start
    return {
        "blocks": n,
        "kb": round(len(ours.encode()) / 1024),
        "merge_s": statistics.median(times),
        "merge_cpu_s": statistics.median(cpu),
        "driver_process_s": process,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--clones", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sizes", default="100,1000,10000")
    ap.add_argument("--skip-simulation", action="store_true")
    args = ap.parse_args(argv)
    for n in [int(s) for s in args.sizes.split(",") if s]:
        t = merge_time(n)
        print(
            f"merge of {t['blocks']:>6} blocks ({t['kb']} KB): {t['merge_s'] * 1000:7.1f} ms in process "
            f"(CPU {t['merge_cpu_s'] * 1000:.1f} ms), {t['driver_process_s'] * 1000:7.1f} ms as the "
            "driver process"
        )
    if args.skip_simulation:
        return 0
    root = Path(tempfile.mkdtemp(prefix="agd-team-sim-"))
    try:
        result = simulate(root, args.clones, args.rounds, args.seed)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    for key, value in result.items():
        print(f"{key}: {value}")
    ok = result["converged"] and not any(
        result[k] for k in ("conflicts", "lost", "markers", "missing_ids")
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
