"""`bash scripts/demo`, the README's first command, runs to the end on a fresh home."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_the_demo_runs_the_hooks_and_the_cli_on_the_example_memory(tmp_path: Path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.run(
        ["bash", str(REPO / "scripts" / "demo")],
        capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    assert "# Memory (agd-memory)" in out, "SessionStart injected the table of contents"
    assert out.count("[agd-memory:auto-recall]") == 2, "two prompts recalled, one stayed silent"
    assert "(nothing injected)" in out
    assert "added #decision-credit-notes" in out
    assert list(tmp_path.iterdir()) == [], "the demo leaves nothing behind in its temporary folder"
    # The README's example session is this output: each line it shows (cut at `…`) is here.
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    seen = readme.split("## What you see", 1)[1].split("**When the session ends**", 1)[0]
    for block in re.findall(r"(?ms)^```text\n(.*?)^```", seen):
        for line in block.splitlines():
            shown = line.split("…")[0].strip()
            assert shown in out, f"the README shows a line the demo does not print: {line}"
