"""The optional word files recall reads (stopwords, synonyms) and the eval's cases file are
read bounded and only when they are regular files: a FIFO or a device named there must
not hang the prompt hook (Claude Code waits on it) nor the eval."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agd_memory import cli
from agd_memory.recall import policy
from agd_memory.recall.text import read_word_file

REPO = Path(__file__).resolve().parents[2]
MEMORY = REPO / "tests" / "hooks" / "fixtures" / "project-memory.agd"
PROMPT = "Which port does pgbouncer use for the staging Postgres database?"


def _prompt_hook(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[bytes]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("AGD_", "CLAUDE"))}
    base.update(
        HOME=str(tmp_path / "home"),
        CLAUDE_PLUGIN_DATA=str(tmp_path / "data"),
        AGD_MEMORY_FILE=str(MEMORY),
        AGD_MEMORY_GLOBAL_FILE=str(tmp_path / "global.agd"),
        **env,
    )
    payload = {"hook_event_name": "UserPromptSubmit", "prompt": PROMPT, "cwd": str(tmp_path)}
    return subprocess.run(
        [sys.executable, "-S", str(REPO / "bin" / "agd-memory"), "hook", "prompt"],
        input=json.dumps(payload).encode(),
        env=base,
        capture_output=True,
        timeout=30,  # a blocking read of the FIFO would wait for ever
        check=True,
    )


@pytest.mark.parametrize("variable", ["AGD_RECALL_STOPWORDS_FILE", "AGD_RECALL_SYNONYMS_FILE"])
def test_a_fifo_as_a_word_file_does_not_hang_the_prompt_hook(tmp_path: Path, variable: str) -> None:
    fifo = tmp_path / "words"
    os.mkfifo(fifo)
    proc = _prompt_hook(tmp_path, **{variable: str(fifo)})
    context = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "project-staging-pgbouncer" in context  # recall went on without the file
    if variable == "AGD_RECALL_STOPWORDS_FILE":  # the synonyms file must pass is_file() first
        log = (tmp_path / "data" / "debug.log").read_text(encoding="utf-8")
        assert f"ignoring {fifo}: not a regular file" in log


def test_a_fifo_synonyms_file_is_read_as_no_groups(tmp_path: Path) -> None:
    from agd_memory.recall.lexicon import read_groups

    fifo = tmp_path / "synonyms"
    os.mkfifo(fifo)
    assert read_groups(fifo) == []


def test_word_files_are_bounded_and_a_missing_one_is_empty(tmp_path: Path) -> None:
    words = tmp_path / "stop.txt"
    words.write_text("# mine\nFoo\n\n bar \n", encoding="utf-8")
    assert read_word_file(words) == {"foo", "bar"}
    assert read_word_file(tmp_path / "absent.txt") == frozenset()
    assert read_word_file(Path("/dev/zero")) == frozenset()  # a device never ends


def test_eval_refuses_a_fifo_cases_file_in_one_line(tmp_path: Path, capsys) -> None:
    fifo = tmp_path / "cases.json"
    os.mkfifo(fifo)
    assert cli.main(["eval", str(fifo)]) == 1
    err = capsys.readouterr().err
    assert err == f"agd-memory: {fifo}: cannot read the cases file: " + (
        "not a regular file (a folder, FIFO or device); give a file\n"
    )
    assert cli.main(["eval", str(tmp_path / "none.json")]) == 1
    assert "no such cases file" in capsys.readouterr().err


OPENERS = [
    "write a haiku about push notifications",
    "Please, write me a short poem",
    "tell me a joke",
    "s'il te plait ecris-moi un poeme",
    "schreib mir ein gedicht",
    "conta-me uma piada",
    "make up a song about the deploy",
    "  -- compose a limerick",
    "writes a poem",
    "write_poem",
    "give me the deploy steps",
    "what is a haiku",
    "per favore scrivimi una poesia",
    "erzahl mir einen witz",
    "«dime un chiste»",
    "tell",
    "",
]


@pytest.mark.parametrize("text", OPENERS)
def test_the_creative_gate_decides_as_its_whole_pattern(text: str) -> None:
    # the cheap first-word test only spares compiling the pattern; the verdict is its own
    folded = policy.fold(text)
    whole = re.search(policy.CREATIVE_PATTERN, folded) is not None
    assert policy.asks_for_creative_text(folded) is whole
