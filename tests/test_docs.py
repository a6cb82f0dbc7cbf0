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


# A measured figure: a number with a unit of time, size, speed, share or count of files or
# tokens. Limits and defaults are settings, not measurements: the configuration table and
# lines that state a limit ("at most", "up to", "past", "limit") are left out.
FIGURE = re.compile(r"(?<![\w.-])\d[\d,.]*\s?(?:%|ms|µs|MiB|KiB|GB|MB/s|files\b|tokens\b)")
MEASURED_BY = re.compile(
    r"`(?:python3 |bash )?(?:benchmarks/[\w./-]+|scripts/\w+)[^`]*`|benchmarks/README\.md"
)
LIMIT_WORDS = ("at most", "up to", "past ", "limit", "budget", "cap", "default", "has 5 s")


def readme_paragraphs() -> list[str]:
    """The README's paragraphs, a table together with the paragraph that introduces it."""
    text = re.sub(r"(?ms)^```.*?^```\n", "", README)  # examples, not claims
    paragraphs: list[str] = []
    for chunk in re.split(r"\n\s*\n", text):
        if chunk.lstrip().startswith("|") and paragraphs:
            paragraphs[-1] += "\n" + chunk
        else:
            paragraphs.append(chunk)
    return paragraphs


def test_every_figure_in_the_readme_names_the_command_that_measures_it() -> None:
    unmeasured = []
    for paragraph in readme_paragraphs():
        lines = [
            line
            for line in paragraph.splitlines()
            if not line.startswith("| `AGD_") and not any(w in line for w in LIMIT_WORDS)
        ]
        if FIGURE.search("\n".join(lines)) and not MEASURED_BY.search(paragraph):
            unmeasured.append(paragraph.strip()[:200])
    assert unmeasured == [], "figures without the command that measures them:\n\n" + "\n\n".join(
        unmeasured
    )


@pytest.mark.parametrize(
    "skill", sorted(p.parent.name for p in (ROOT / "skills").glob("*/SKILL.md"))
)
def test_readme_names_every_slash_command(skill: str) -> None:
    if skill == "memory":  # the model's own skill, not typed by the user
        return
    assert f"`/agd-memory:{skill}" in README, f"/agd-memory:{skill} is not in the README"
