"""How often the MCP server is connected in short single-turn `claude -p` sessions.

    python3 benchmarks/mcp_sessions.py [--sessions 20] [--prompt hello] [--busy N]

Needs the pinned CLI in $AGD_E2E_CLAUDE (scripts/test installs it) and the MCP SDK in
this interpreter. Each session is `claude -p PROMPT` in a fresh isolated home against
the fake Messages API (tests/e2e/fake_api.py) with this checkout as the plugin. The
server counts as connected in a session when the model's first request names one of
its tools (Claude Code lists connected servers' deferred tools by name) or carries its
instructions. Prints connected / sessions and the session wall times (median).
`--busy N` runs N busy-looping processes meanwhile, as on a machine whose cores are
shared (the CLI waits only about 2 s for a server before its first request).
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from e2e_harness import MCP_PREFIX, E2EProject, base_env  # noqa: E402
from fake_api import FakeAnthropic  # noqa: E402

SIGNS = (MCP_PREFIX + "agd_memory_toc", "agd-memory is this project's persistent memory")


def one_session(binary: str, fake: FakeAnthropic, prompt: str) -> tuple[bool, float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        home, project = root / "home", root / "project"
        for d in (home / ".claude", project):
            d.mkdir(parents=True)
        e2e = E2EProject(root, home, home / ".claude", project, {"AGD_MEMORY_HOME": str(home)})
        env = base_env(e2e, fake.url)
        env.update({"AGD_DISTILL_DISABLED": "1", "AGD_HISTORY_DISABLED": "1"})
        before = len(fake.requests)
        argv = [binary, "-p", prompt, "--output-format", "json", "--no-session-persistence"]
        start = time.perf_counter()
        subprocess.run(
            [*argv, "--plugin-dir", str(ROOT)],
            cwd=project,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=120,
            check=False,
        )
        wall = time.perf_counter() - start
        first = [r for r in fake.requests[before:] if r.is_conversation][:1]
        text = first[0].all_text() if first else ""
        return any(sign in text for sign in SIGNS), wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--prompt", default="hello")
    parser.add_argument("--busy", type=int, default=0, help="busy-looping processes meanwhile")
    args = parser.parse_args()
    binary = os.environ.get("AGD_E2E_CLAUDE", "")
    if not os.access(binary, os.X_OK):
        sys.exit("set AGD_E2E_CLAUDE to the pinned claude CLI (scripts/test installs it)")
    connected, walls = 0, []
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    try:
        with FakeAnthropic() as fake:
            for i in range(args.sessions):
                ok, wall = one_session(binary, fake, args.prompt)
                connected += ok
                walls.append(wall)
                print(f"session {i + 1}: {'connected' if ok else 'NOT connected'} ({wall:.1f} s)")
    finally:
        for proc in busy:
            proc.kill()
            proc.wait()
    print(
        f"MCP server connected in {connected} of {args.sessions} single-turn sessions"
        f"{f' with {args.busy} busy processes' if args.busy else ''}; "
        f"session wall median {statistics.median(walls):.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
