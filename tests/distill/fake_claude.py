"""A scripted stand-in for the `claude` CLI, installed on PATH as `claude` by the tests.

It reads `$FAKE_CLAUDE_DIR/script.json`:

    {"responses": [R1, R2, ...]}   # R_n answers the n-th call; the last one repeats

where a response is an object with any of
    "proposals": [...]             # success: a result object with structured_output
    "exit": N, "stderr": "..."     # a failure
    "result": {...}                # a raw result object printed as is (exit 0 unless "exit")
    "stdout": "..."                # raw text printed as is (exit 0 unless "exit")
    "sleep": seconds               # before answering (for time-outs and overlap checks)

Every call is recorded as `$FAKE_CLAUDE_DIR/calls/NNNN.json`: argv, stdin, cwd,
the recursion-guard variable, and start/end times.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path


def main() -> int:
    base = Path(os.environ["FAKE_CLAUDE_DIR"])
    calls = base / "calls"
    calls.mkdir(parents=True, exist_ok=True)
    stdin = sys.stdin.read()
    started = time.time()
    n = 1
    while True:  # claim the next call number atomically
        record = calls / f"{n:04d}.json"
        try:
            fd = os.open(record, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            os.close(fd)
            break
        except FileExistsError:
            n += 1
    info = {
        "n": n,
        "argv": sys.argv[1:],
        "stdin": stdin,
        "cwd": os.getcwd(),
        "guard": os.environ.get("AGD_DISTILL_GUARD"),
        "env": {k: v for k, v in os.environ.items() if k.startswith("CLAUDE")},
        "pid": os.getpid(),
        "started": started,
    }
    record.write_text(json.dumps(info))
    try:
        script = json.loads((base / "script.json").read_text())
    except (OSError, ValueError):
        script = {}
    responses = script.get("responses") or [{"proposals": []}]
    r = responses[min(n, len(responses)) - 1]
    time.sleep(float(r.get("sleep", 0)))
    info["ended"] = time.time()
    record.write_text(json.dumps(info))
    if "proposals" in r:
        out = {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "result": json.dumps({"proposals": r["proposals"]}),
            "structured_output": {"proposals": r["proposals"]},
            "total_cost_usd": 0.001,
        }
        print(json.dumps(out))
        return int(r.get("exit", 0))
    if "stdout" in r:
        sys.stdout.write(r["stdout"])
        return int(r.get("exit", 0))
    if "result" in r:
        print(json.dumps(r["result"]))
    sys.stderr.write(r.get("stderr", ""))
    return int(r.get("exit", 0 if "result" in r else 1))


if __name__ == "__main__":
    sys.exit(main())
