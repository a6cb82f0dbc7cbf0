"""`agd-memory recall | search | eval`: output contracts (`config`: tests/commands/test_config.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from recall_helpers import block, write_memory

from agd_memory.cli import main

RECALL_KEYS = {
    "skipped", "words", "chosen", "injected_chars", "injected_tokens", "context", "closest"
}  # fmt: skip
CHOSEN_KEYS = {"id", "kind", "layer", "score", "chars"}
SEARCH_KEYS = {"id", "kind", "layer", "desc", "score", "excerpt"}


@pytest.fixture
def memory(env) -> Path:
    return write_memory(
        env.root / "memory.agd",
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


def test_missing_file_is_one_line_error(capsys, env) -> None:
    rc, _, err = run(capsys, "search", "x", "--file", str(env.root / "nope.agd"))
    assert rc == 1
    assert err.startswith("agd-memory: ") and "nope.agd" in err and err.count("\n") == 1


def test_bad_limit_is_a_user_error(capsys, memory: Path) -> None:
    rc, _, err = run(capsys, "search", "x", "--limit", "0", "--file", str(memory))
    assert rc == 1 and "--limit" in err


def test_eval_rejects_unknown_variables_and_features(capsys, env) -> None:
    cases = env.root / "cases.json"
    cases.write_text('{"cases": []}', encoding="utf-8")
    rc, _, err = run(capsys, "eval", str(cases), "--set", "AGD_NOPE=1")
    assert rc == 1 and "AGD_NOPE" in err
    rc, _, err = run(capsys, "eval", str(cases), "--features", "nope")
    assert rc == 1 and "unknown recall feature" in err


def test_eval_needs_cases_or_all(capsys, env) -> None:
    rc, _, err = run(capsys, "eval")
    assert rc == 1 and "--all" in err and err.count("\n") == 1


def test_eval_all_compares_every_set_with_the_earlier_algorithm(capsys, env) -> None:
    from agd_memory.recall.eval import sets

    rc, out, _ = run(capsys, "eval", "--all", "--json")
    assert rc == 0
    rows = json.loads(out)
    assert [r["set"] for r in rows] == [s.name for s in sets.SETS]
    for r in rows:
        for side in ("ours", "baseline"):
            x = r[side]
            assert 0 <= x["recall3"] <= x["positives"] and x["hit1"] <= x["recall3"]
            assert x["off_topic"][1] > 0
    assert any(r["ours"]["in_project"][1] >= 50 for r in rows)  # the real-use sets
    rc, out, _ = run(capsys, "eval", "--all")
    assert rc == 0 and out.count("| ours |") == len(rows) == out.count("| baseline |")


def test_recall_says_which_blocks_came_closest_when_it_stays_silent(capsys, env) -> None:
    # issue 26: a miss the user cannot see the reason for costs a repeated explanation
    freeze = block(
        "deploy-freeze",
        "no deploys on Friday afternoon",
        "Production deploys stop at Friday 14:00 until Monday.",
        kind="x-feedback",
    )
    others = [block(f"note-{w}", f"topic {w}", f"{w} details for the {w} team") for w in
              ("billing", "search", "mobile", "printer", "invoice", "office")]  # fmt: skip
    memory = write_memory(env.root / "memory.agd", [*others, freeze])
    prompt = "bump the kiosk build number for the production deploys"
    rc, out, _ = run(capsys, "recall", prompt, "--file", str(memory))
    assert rc == 0
    lines = out.splitlines()
    assert lines[0] == "nothing injected: no_relevant_blocks"
    closest = [line.split() for line in lines if line.startswith("  #")]
    assert closest[0][0] == "#deploy-freeze"
    share, need = (int(x.rstrip("%")) for x in (closest[0][1], closest[0][3]))
    assert share < need
    assert "agd-memory keys" in out
    _, out, _ = run(capsys, "recall", prompt, "--json", "--file", str(memory))
    closest = json.loads(out)["closest"]
    assert closest[0]["id"] == "deploy-freeze" and closest[0]["share"] < closest[0]["need"]
    # a gate's refusal names no block: no block was weighed
    rc, out, _ = run(capsys, "recall", "write a poem about production deploys", "--file", str(memory))
    assert out.startswith("nothing injected: creative_request") and "#" not in out
