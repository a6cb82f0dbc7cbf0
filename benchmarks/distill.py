"""The SessionEnd hook's own time: payload on stdin to process exit, over bare interpreter start-up.

    python3 benchmarks/distill.py [--runs 30]

Runs `bin/agd-memory hook session-end` (what `hooks/run` execs) with a real
payload shape, in an isolated home and data folder, and `python3 -c pass` in
the same loop; prints the medians and the difference (target: <= 150 ms). The
detached worker each hook starts is left to finish (it gates the trivial
transcript out, no model call) before the next run, so it never competes with
the measured process. Also prints how long the worker took, end to end.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def transcript(path: Path) -> None:
    records = [
        {"type": "user", "message": {"role": "user", "content": "what does main() do?"}},
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "It parses args."}],
            },
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def timed(argv: list[str], stdin: bytes, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        argv,
        input=stdin,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return time.perf_counter() - start


def wait_recorded(runs: Path, n: int, timeout: float = 30.0) -> float:
    """Seconds until the worker has recorded its run (the `n`-th line of runs.jsonl)."""
    start = time.perf_counter()
    while time.perf_counter() - start < timeout:
        try:
            if len(runs.read_bytes().splitlines()) >= n:
                return time.perf_counter() - start
        except FileNotFoundError:
            pass
        time.sleep(0.002)
    raise SystemExit("the worker did not record its run within 30 s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "home").mkdir()
        (root / "project").mkdir()
        t = root / "session.jsonl"
        transcript(t)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AGD_", "CLAUDE"))}
        env.update(
            HOME=str(root / "home"),
            AGD_MEMORY_HOME=str(root / "home"),
            CLAUDE_PLUGIN_DATA=str(root / "data"),
            AGD_DISTILL_CLAUDE="agd-no-such-claude",
            GIT_CEILING_DIRECTORIES=str(root),
        )
        payload = json.dumps(
            {
                "session_id": "bench",
                "transcript_path": str(t),
                "cwd": str(root / "project"),
                "hook_event_name": "SessionEnd",
                "reason": "other",
            }
        ).encode()
        hook = [sys.executable, str(REPO / "bin" / "agd-memory"), "hook", "session-end"]
        bare = [sys.executable, "-c", "pass"]
        runs = root / "data" / "distill" / "runs.jsonl"
        hook_times, bare_times, worker_times = [], [], []
        timed(hook, payload, env)  # warm the file cache and __pycache__
        wait_recorded(runs, 1)
        for i in range(args.runs):
            bare_times.append(timed(bare, b"", env))
            hook_times.append(timed(hook, payload, env))
            worker_times.append(wait_recorded(runs, i + 2))
        outcomes = {json.loads(line)["outcome"] for line in runs.read_text().splitlines()}
        assert outcomes == {"skipped"}, outcomes
    h, b, w = (statistics.median(x) * 1000 for x in (hook_times, bare_times, worker_times))
    print(f"runs: {args.runs}")
    print(f"bare python3 -c pass        median {b:7.1f} ms")
    print(
        f"hook session-end            median {h:7.1f} ms  (p90 {sorted(hook_times)[int(0.9 * len(hook_times))] * 1000:.1f} ms)"
    )
    print(f"hook over bare start-up     median {h - b:7.1f} ms  (target <= 150 ms)")
    print(f"detached worker, gated out  median {w:7.1f} ms after the hook exited (run recorded)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
