"""`agd-memory recall | search | eval | config`: output contracts and config persistence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from recall_helpers import block, write_memory

from agd_memory.cli import main

RECALL_KEYS = {"skipped", "words", "chosen", "injected_chars", "injected_tokens", "context"}
CHOSEN_KEYS = {"id", "kind", "layer", "score", "chars"}
SEARCH_KEYS = {"id", "kind", "layer", "desc", "score", "excerpt"}


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for var in ("AGD_RECALL_LANGS", "AGD_RECALL_STOPWORDS_FILE", "AGD_RECALL_DISABLED"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(tmp_path / "data"))
    return tmp_path


@pytest.fixture
def memory(env: Path) -> Path:
    return write_memory(
        env / "memory.agd",
        [
            block(
                "deploy-vps", "deploy on the VPS with the release script", "Run scripts/deploy.sh."
            ),
            block(
                "backup-restic", "nightly backups with restic", "restic keeps 7 daily snapshots."
            ),
        ],
    )


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_recall_json_keys_are_pinned(capsys, memory: Path) -> None:
    rc, out, _ = run(
        capsys, "recall", "how do we deploy the release script?", "--json", "--file", str(memory)
    )
    data = json.loads(out)
    assert rc == 0
    assert set(data) == RECALL_KEYS
    assert data["skipped"] is None
    assert [c["id"] for c in data["chosen"]] == ["deploy-vps"]
    assert set(data["chosen"][0]) == CHOSEN_KEYS
    assert data["injected_chars"] == len(data["context"])
    assert data["injected_tokens"] == -(-len(data["context"]) // 4)


def test_recall_json_reports_a_skip(capsys, memory: Path) -> None:
    _, out, _ = run(capsys, "recall", "ok", "--json", "--file", str(memory))
    data = json.loads(out)
    assert data["skipped"] == "prompt_below_min_words"
    assert data["chosen"] == [] and data["context"] == "" and data["injected_tokens"] == 0


def test_recall_text_output(capsys, memory: Path) -> None:
    _, out, _ = run(capsys, "recall", "how do we deploy the release script?", "--file", str(memory))
    assert out.startswith("#deploy-vps  x-project  project  score ")
    assert "[agd-memory:auto-recall] 1 block matched this prompt (#deploy-vps)" in out


def test_search_json_keys_limit_and_kind(capsys, memory: Path) -> None:
    _, out, _ = run(
        capsys, "search", "restic backups", "--json", "--limit", "1", "--file", str(memory)
    )
    hits = json.loads(out)
    assert [h["id"] for h in hits] == ["backup-restic"]
    assert set(hits[0]) == SEARCH_KEYS
    assert "restic" in hits[0]["excerpt"]
    _, out, _ = run(capsys, "search", "restic", "--json", "--kind", "x-user", "--file", str(memory))
    assert json.loads(out) == []


def test_search_has_no_gates(capsys, memory: Path) -> None:
    _, out, _ = run(capsys, "search", "restic", "--json", "--file", str(memory))
    assert [h["id"] for h in json.loads(out)] == ["backup-restic"]


def test_missing_file_is_one_line_error(capsys, env: Path) -> None:
    rc, _, err = run(capsys, "search", "x", "--file", str(env / "nope.agd"))
    assert rc == 1
    assert err.startswith("agd-memory: ") and "nope.agd" in err and err.count("\n") == 1


def test_bad_limit_is_a_user_error(capsys, memory: Path) -> None:
    rc, _, err = run(capsys, "search", "x", "--limit", "0", "--file", str(memory))
    assert rc == 1 and "--limit" in err


# ---- config


def config_file(env: Path) -> Path:
    return env / "data" / "recall.json"


def test_config_show_lists_langs_and_sources(capsys, env: Path) -> None:
    rc, out, _ = run(capsys, "config", "show")
    assert rc == 0
    assert f"config file: {config_file(env)}" in out
    assert "langs: " in out and "[default]" in out
    assert "built-in langs: en,it,es,fr,de,pt" in out
    assert "AGD_RECALL_TOP_K=3" in out


def test_config_enable_persists_and_unknown_is_rc2(capsys, env: Path) -> None:
    rc, out, _ = run(capsys, "config", "enable", "it")
    assert rc == 0 and "enabled it" in out
    assert json.loads(config_file(env).read_text())["langs"] == ["it"]
    text = config_file(env).read_text()
    assert text.endswith("\n") and '  "langs"' in text
    rc, _, err = run(capsys, "config", "enable", "xx")
    assert rc == 2 and "unknown built-in lang" in err
    rc, out, _ = run(capsys, "config", "enable", "it")
    assert rc == 0 and "already enabled" in out
    _, out, _ = run(capsys, "config", "show")
    assert "langs: it [config file]" in out


def test_config_disable_set_reset(capsys, env: Path) -> None:
    run(capsys, "config", "set", "en,it")
    assert json.loads(config_file(env).read_text())["langs"] == ["en", "it"]
    run(capsys, "config", "disable", "en")
    assert json.loads(config_file(env).read_text())["langs"] == ["it"]
    rc, out, _ = run(capsys, "config", "disable", "de")
    assert rc == 0 and "not enabled" in out
    rc, _, err = run(capsys, "config", "set", "en,zz")
    assert rc == 2 and "unknown built-in lang" in err
    run(capsys, "config", "set", "")
    assert json.loads(config_file(env).read_text())["langs"] == []
    run(capsys, "config", "reset")
    assert not config_file(env).exists()


def test_config_stopwords_file(capsys, env: Path) -> None:
    sw = env / "sw.txt"
    sw.write_text("foo\n", encoding="utf-8")
    rc, _, err = run(capsys, "config", "stopwords-file", str(env / "missing.txt"))
    assert rc == 2 and "no such file" in err
    rc, _, _ = run(capsys, "config", "stopwords-file", str(sw))
    assert rc == 0
    assert json.loads(config_file(env).read_text())["stopwords_file"] == str(sw.resolve())
    run(capsys, "config", "stopwords-file")
    assert "stopwords_file" not in json.loads(config_file(env).read_text())


def test_config_file_langs_reach_recall(capsys, memory: Path) -> None:
    run(capsys, "config", "set", "it")
    _, out, _ = run(capsys, "recall", "ciao come stai oggi", "--json", "--file", str(memory))
    assert json.loads(out)["skipped"] == "prompt_below_min_words"


def test_env_beats_the_config_file(capsys, env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run(capsys, "config", "set", "it")
    monkeypatch.setenv("AGD_RECALL_LANGS", "en")
    _, out, err = run(capsys, "config", "show")
    assert "langs: en [env (AGD_RECALL_LANGS)]" in out
    _, _, err = run(capsys, "config", "enable", "de")
    assert "AGD_RECALL_LANGS is set in the environment and wins" in err


def test_config_without_subcommand_is_rc2(capsys, env: Path) -> None:
    rc, _, err = run(capsys, "config")
    assert rc == 2 and err.startswith("usage: agd-memory config") and "show|enable" in err
    rc, _, err = run(capsys, "config", "bogus")
    assert rc == 2 and "agd-memory config: error: argument" in err and "'bogus'" in err


def test_eval_rejects_unknown_variables_and_features(capsys, env: Path) -> None:
    cases = env / "cases.json"
    cases.write_text('{"cases": []}', encoding="utf-8")
    rc, _, err = run(capsys, "eval", str(cases), "--set", "AGD_NOPE=1")
    assert rc == 1 and "AGD_NOPE" in err
    rc, _, err = run(capsys, "eval", str(cases), "--features", "nope")
    assert rc == 1 and "unknown recall feature" in err
