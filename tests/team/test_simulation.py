"""The team simulation of `benchmarks/team.py`, fewer rounds: clones saving, editing,
superseding, renaming and deleting through the CLI, then committing, pulling and pushing."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest


def _load_benchmark():  # by path: benchmarks/ on sys.path would shadow `secrets` and `mcp`
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "team.py"
    spec = importlib.util.spec_from_file_location("benchmark_team", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


bench = _load_benchmark()


@pytest.mark.slow
def test_three_clones_converge_without_conflicts_or_lost_edits(tmp_path: Path):
    result = bench.simulate(tmp_path, clones=3, rounds=4, seed=3)
    assert result["converged"], "every clone holds the same file"
    assert result["conflicts"] == 0 and result["markers"] == 0
    assert result["lost"] == [], "an acknowledged body disappeared"
    assert result["missing_ids"] == [], "an id saved and never deleted or renamed is missing"
    assert result["acked"] > 0


def test_a_merge_of_large_files_keeps_every_change():
    base, ours, theirs = bench.versions(1000)
    merged = bench.merge(base, ours, theirs)
    values = [b.value for b in bench.parse(merged.text).blocks]
    for side in (ours, theirs):
        for b in bench.parse(side).blocks:
            if b.value and "edited by" in str(b.value) or "new from" in str(b.value):
                assert b.value in values
    assert sum(n.rule == "changed-both" for n in merged.notes) == 5
