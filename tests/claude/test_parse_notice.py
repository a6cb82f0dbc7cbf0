"""The prompt hook's once-per-version notice of a memory file that stopped parsing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agd_memory.claude import parse_notice
from agd_memory.settings import Settings


def test_told_once_per_version(tmp_path: Path) -> None:
    settings = Settings.load({"CLAUDE_PLUGIN_DATA": str(tmp_path / "data")})
    memory = tmp_path / "memory.agd"
    memory.write_text("@x-user [#a]\n~~~\nbroken\n", encoding="utf-8")
    assert parse_notice.first_time(settings, memory)
    assert not parse_notice.first_time(settings, memory)
    memory.write_text("@x-user [#a]\n~~~\nbroken again\n", encoding="utf-8")
    assert parse_notice.first_time(settings, memory)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_as_the_record_does_not_hang_the_prompt_hook(tmp_path: Path) -> None:
    settings = Settings.load({"CLAUDE_PLUGIN_DATA": str(tmp_path / "data")})
    memory = tmp_path / "memory.agd"
    memory.write_text("@x-user [#a]\n~~~\nbroken\n", encoding="utf-8")
    marker = parse_notice._marker(settings, memory)
    marker.parent.mkdir(parents=True)
    os.mkfifo(marker)
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); "
        "from agd_memory.claude import parse_notice; from agd_memory.settings import Settings; "
        "print(parse_notice.first_time(Settings.load({'CLAUDE_PLUGIN_DATA': sys.argv[2]}), sys.argv[3]))"
    )
    src = str(Path(parse_notice.__file__).resolve().parents[2])
    done = subprocess.run(
        [sys.executable, "-c", code, src, str(tmp_path / "data"), str(memory)],
        capture_output=True, text=True, timeout=20,
    )  # fmt: skip
    assert done.stdout.strip() == "True", done.stderr
