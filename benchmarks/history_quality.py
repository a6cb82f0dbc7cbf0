"""Session history search quality: R@1 and R@5, our ranking beside plain BM25.

    python3 benchmarks/history_quality.py

Two sets, both written for this repository: benchmarks/data/history_sessions.py (one
project, 10 sessions) and benchmarks/data/history_sessions_large.py (three projects, each
its own history, questions asked in the project they concern). The sessions are written as Claude Code JSONL (with tool results, a meta
record and a sidechain turn), imported through `history.capture`, then every question is
asked with `history.search` and with a plain BM25 (lower-cased `\\w+` words, no stemming,
no stopwords, k1=1.2, b=0.75) over the same exchange texts. A hit is the answering
exchange among the first 1 or 5 results. Dev and held-out questions are reported apart.
"""

from __future__ import annotations

import json
import math
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks" / "data"))

import history_sessions  # noqa: E402
import history_sessions_large  # noqa: E402

from agd_memory.history import capture, files, search  # noqa: E402
from agd_memory.settings import Settings  # noqa: E402


def write_transcript(path: Path, sid: str, day: str, turns: list) -> None:
    out = []
    for i, (ask, answer, tools) in enumerate(turns):
        ts = f"{day}T10:{i:02d}:00.000Z"
        base = {"sessionId": sid, "timestamp": ts}
        out.append(
            {
                **base,
                "type": "user",
                "uuid": f"{sid}-{i}",
                "message": {"role": "user", "content": ask},
            }
        )
        content = [
            {
                "type": "tool_use",
                "name": t.split()[0],
                "input": dict([t.split(" ", 1)[1].split("=", 1)]),
            }
            for t in tools
        ]
        out.append(
            {**base, "type": "assistant", "message": {"role": "assistant", "content": content}}
        )
        out.append(
            {
                **base,
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "content": "output " * 30}],
                },
            }
        )
        out.append(
            {
                **base,
                "type": "user",
                "isSidechain": True,
                "message": {"role": "user", "content": "subagent prompt"},
            }
        )
        out.append(
            {
                **base,
                "type": "assistant",
                "message": {"role": "assistant", "content": [{"type": "text", "text": answer}]},
            }
        )
    out.append(
        {
            "type": "user",
            "isMeta": True,
            "sessionId": sid,
            "message": {
                "role": "user",
                "content": "<local-command-caveat>x</local-command-caveat>",
            },
        }
    )
    path.write_text("".join(json.dumps(r) + "\n" for r in out))


def bm25(docs: dict[str, str], query: str, k: int = 5) -> list[str]:
    tok = lambda t: re.findall(r"\w+", t.lower())  # noqa: E731
    counts = {d: Counter(tok(t)) for d, t in docs.items()}
    lens = {d: sum(c.values()) for d, c in counts.items()}
    avg = sum(lens.values()) / len(lens)
    n = len(docs)
    scores: Counter[str] = Counter()
    for w in set(tok(query)):
        df = sum(1 for c in counts.values() if w in c)
        if not df:
            continue
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        for d, c in counts.items():
            tf = c.get(w, 0)
            if tf:
                scores[d] += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * lens[d] / avg))
    return [d for d, _ in scores.most_common(k)]


def evaluate(title: str, projects: dict, dev: list, held_out: list) -> None:
    """Ingest each project's sessions into its own history, then ask every question there."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        settings = Settings.load({"CLAUDE_PLUGIN_DATA": str(root / "data")})
        folders: dict[str, Path] = {}
        docs: dict[str, dict[str, str]] = {}
        for name, sessions in projects.items():
            memory = root / name / "memory.agd"
            for sid, (day, turns) in sessions.items():
                p = root / f"{sid}.jsonl"
                write_transcript(p, sid, day, turns)
                capture.ingest(settings, p, memory, keep=False)
            folder = folders[name] = files.folder_of(memory)
            docs[name] = {
                files.block_id(e.session, e.n): e.text
                for f in files.session_files(folder)
                for e in files.read_file(f)
            }
        project_of = {sid: name for name, sessions in projects.items() for sid in sessions}
        n_sessions = sum(len(s) for s in projects.values())
        n_docs = sum(len(d) for d in docs.values())
        print(f"{title}: {len(projects)} projects, {n_sessions} sessions, {n_docs} exchanges")
        for name, cases in (("dev", dev), ("held-out", held_out)):
            ours = [0, 0]
            base = [0, 0]
            for q, sid, n in cases:
                project = project_of[sid]
                want = files.block_id(sid, n)
                got = [h.id for h in search.search(folders[project], q, settings, limit=5)]
                ref = bm25(docs[project], q)
                ours[0] += got[:1] == [want]
                ours[1] += want in got
                base[0] += ref[:1] == [want]
                base[1] += want in ref
            m = len(cases)
            print(
                f"  {name:9} n={m:3}  history search R@1 {100 * ours[0] / m:5.1f} R@5 {100 * ours[1] / m:5.1f}"
                f"   plain BM25 R@1 {100 * base[0] / m:5.1f} R@5 {100 * base[1] / m:5.1f}"
            )


def main() -> None:
    small = history_sessions
    evaluate("small set", {"app": small.SESSIONS}, small.DEV, small.HELD_OUT)
    large = history_sessions_large
    evaluate("large set", large.PROJECTS, large.DEV, large.HELD_OUT)


if __name__ == "__main__":
    main()
