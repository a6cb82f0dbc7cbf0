"""The README documents every setting and every command, so a new one cannot ship undocumented."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from agd_memory.cli import VERBS
from agd_memory.settings import VARIABLES

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", [v.name for v in VARIABLES])
def test_readme_lists_every_setting(name: str) -> None:
    assert f"| `{name}` |" in README, f"{name} is missing from the README's configuration table"


@pytest.mark.parametrize("verb", list(VERBS))
def test_readme_names_every_verb(verb: str) -> None:
    assert re.search(rf"`{re.escape(verb)}[ `\\|]", README), f"verb {verb} is not in the README"


@pytest.mark.parametrize("verb", list(VERBS))
def test_every_verb_has_help(verb: str) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "bin" / "agd-memory"), verb, "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert f"agd-memory {verb}" in result.stdout + result.stderr, "the help shows how to call it"


def test_readme_gives_the_two_setup_commands_and_ci_runs_the_test_one() -> None:
    setup = README.split("## Set-up on a fresh machine", 1)[1].split("##", 1)[0]
    assert "bash scripts/demo" in setup and "bash scripts/test" in setup
    assert "bash scripts/test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
