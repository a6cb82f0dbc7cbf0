"""The shell launcher `agd-memory install-cli` writes, against the program it starts.

    python3 benchmarks/launcher.py [--runs 21]

Writes the launchers into a temporary folder, then times `agd-memory --version` three
ways in new processes: through the launcher (sh, one interpreter start that finds the
plugin and runs `bin/agd-memory` in process), `bin/agd-memory` started directly, and a
bare `python3 -c pass`. Medians of N runs after 3 warm-up runs, wall and CPU time (the
children's user + system time) of the same runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def timed(argv: list[str], runs: int) -> tuple[float, float]:
    """(median wall ms, median CPU ms) of `argv` run `runs` times after 3 warm-ups."""
    walls, cpus = [], []
    for i in range(runs + 3):
        before, start = os.times(), time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
        wall, after = time.perf_counter() - start, os.times()
        cpu = (after.children_user + after.children_system) - (
            before.children_user + before.children_system
        )
        if i >= 3:
            walls.append(wall * 1000)
            cpus.append(cpu * 1000)
    return statistics.median(walls), statistics.median(cpus)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="measured runs per row")
    args = parser.parse_args()
    program = str(REPO / "bin" / "agd-memory")
    with tempfile.TemporaryDirectory(prefix="agd-launcher-bench.") as folder:
        subprocess.run(
            [sys.executable, program, "install-cli", folder], stdout=subprocess.DEVNULL, check=True
        )
        rows = [
            ("launcher `agd-memory --version`", [os.path.join(folder, "agd-memory"), "--version"]),
            ("`bin/agd-memory --version`", [sys.executable, program, "--version"]),
            ("`python3 -c pass`", [sys.executable, "-c", "pass"]),
        ]
        print(f"medians of {args.runs} runs, load average {os.getloadavg()[0]:.1f}\n")
        print("| run | wall ms | CPU ms |\n| --- | ---: | ---: |")
        for name, argv in rows:
            wall, cpu = timed(argv, args.runs)
            print(f"| {name} | {wall:.1f} | {cpu:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
