"""A scripted stand-in for the `claude` CLI, installed on PATH as `claude` by the tests.

It reads `$FAKE_CLAUDE_DIR/script.json`:

    {"responses": [R1, R2, ...]}   # R_n answers the n-th call; the last one repeats

where a response is an object with any of
    "proposals": [...]             # success: a result object with structured_output
    "exit": N, "stderr": "..."     # a failure
    "result": {...}                # a raw result object printed as is (exit 0 unless "exit")
    "stdout": "..."                # raw text printed as is (exit 0 unless "exit")
    "sleep": seconds               # before answering (for time-outs and overlap checks)
    "lexicon": [[w, ...], ...]     # answers the learn prompt from what it is sent, as a
                                   # model knowing these synonym groups would (`lexicon_keys`)

Every call is recorded as `$FAKE_CLAUDE_DIR/calls/NNNN.json`: argv, stdin, cwd,
the recursion-guard variable, and start/end times.
"""

from __future__ import annotations

import json
import os
import re
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
    if "lexicon" in r:  # answered from the prompt
        r = {"answer": {"entries": lexicon_keys(stdin, r["lexicon"])}}
    elif "proposals" in r:
        r = {"answer": {"proposals": r["proposals"]}, "exit": r.get("exit", 0)}
    if "answer" in r:
        out = {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "result": json.dumps(r["answer"]),
            "structured_output": r["answer"],
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


def lexicon_keys(stdin: str, lexicon: list[list[str]]) -> list[dict]:
    """The learn prompt's answer (`<lookups>`): for each entry, the words of its `request:`
    lines that share a synonym group with a word of the entry's desc, keys or body and
    that the entry lacks (the model judges the request to be about the entry and keys it
    with the user's words); an entry no request is about gets an empty list."""
    out = []
    for block_id, inner in re.findall(r'<entry id="([^"]+)"[^>]*>(.*?)</entry>', stdin, re.S):
        requests = re.findall(r"^request: (.*)$", inner, re.M)
        about = set(re.findall(r"[a-z]+", re.sub(r"(?m)^request: .*$", "", inner).lower()))
        groups = [set(g) for g in lexicon if about & set(g)]
        found: list[str] = []
        for request in requests:
            for word in re.findall(r"[a-z]+", request.lower()):
                if word not in about and any(word in g for g in groups) and word not in found:
                    found.append(word)
        out.append({"id": block_id, "keys": found})
    return out


if __name__ == "__main__":
    sys.exit(main())
