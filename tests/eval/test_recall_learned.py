"""Keys learned from use (`distill/learn.py`) on the real-use memories.

`benchmarks/learn.py` measures the whole effect (benchmarks/README.md, "Issue 26: what
keys learned from use change"); these tests hold what a user relies on: a prompt whose
entry was missed once and then fetched by the model finds it the next time it is typed
the same way, and the learned keys bring in nothing on prompts no entry answers. Copies of
the memories are written, never the repository's files.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

from agd_memory.commands.recall import eval_settings
from agd_memory.recall import engine
from agd_memory.recall.eval import evaluate
from agd_memory.store import MemoryFile

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DEV = "tests/eval/realuse/dev-cases.json"


def bench_learn():
    spec = importlib.util.spec_from_file_location("bench_learn", ROOT / "benchmarks" / "learn.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_prompt_taught_once_recalls_its_entry_the_next_time_and_no_negative_gains_one(
    tmp_path: Path,
) -> None:
    bench = bench_learn()
    settings = eval_settings([])
    bench.stage(tmp_path, DEV)
    cases = tmp_path / DEV
    before = evaluate.run(cases, settings)
    missed = [r for r in before.positives if not r.hit3]
    assert missed, "the dev set has misses to learn from"

    taught = bench.teach(cases, settings, "strict")
    after = evaluate.run(cases, settings)

    assert {r.expect for r in missed} <= set(taught)
    assert [r.prompt for r in after.positives if not r.hit3] == []
    typed: dict[str, set[str]] = {}
    for r in before.positives:
        typed.setdefault(r.expect, set()).update(bench.learn.words_of(r.prompt))
    for block_id, keys in taught.items():  # only words the user typed for that entry
        assert {w for k in keys for w in bench.learn.words_of(k)} <= typed[block_id]
    gained = [
        r.prompt
        for b, r in zip(before.negatives, after.negatives, strict=True)
        if r.false_injection and not b.false_injection
    ]
    assert gained == []


def test_keys_learned_for_an_entry_do_not_lose_it_for_a_prompt_that_found_it_before(
    tmp_path: Path,
) -> None:
    # an entry that got its first keys once needed a larger share of every prompt (a
    # keyed bar, since gone: one share for every block) even when none of its keys was in
    # it: keys learned from one prompt lost it for another that matched its desc and body
    # (issue 26)
    shutil.copytree(HERE / "realuse" / "biblioteche", tmp_path / "b")
    settings = eval_settings([])

    def files() -> list[MemoryFile]:
        return [
            MemoryFile(tmp_path / "b" / "it-biblioteche.agd", layer="project", settings=settings),
            MemoryFile(tmp_path / "b" / "global.agd", layer="global", settings=settings),
        ]

    prompts = [
        "se il database si corrompe, dove sono i backup cifrati e chi ha la chiave per decifrarli?",
        "il database è corrotto: chi tiene la chiave GPG per decifrare il backup?",
    ]
    for prompt in prompts:
        assert "backup-database" in [
            s.entry.id for s in engine.recall(prompt, files(), settings).chosen
        ]
    # what a session's lookup taught it (words of another prompt about the backups)
    files()[0].set_keys({"backup-database": ["preciso", "salvataggi"]}, first=True)
    assert files()[0].entry("backup-database").attrs["keys"] == "preciso, salvataggi"
    for prompt in prompts:
        chosen = [s.entry.id for s in engine.recall(prompt, files(), settings).chosen]
        assert "backup-database" in chosen, prompt
