"""What the eval checks share: one set's summary, and its regression floors."""

from __future__ import annotations

from pathlib import Path

from agd_memory.commands.recall import eval_settings
from agd_memory.recall.eval import evaluate
from agd_memory.recall.eval.features import DEFAULT


def summary(cases: Path, features=DEFAULT, *overrides: str, override: Path | None = None) -> dict:
    """`agd-memory eval CASES` with `features`, `VAR=value` overrides and a keyed corpus."""
    settings = eval_settings(list(overrides))
    return evaluate.run(cases, settings, features=features, override=override).summary()


def assert_floors(s: dict, hit1: int, recall3: int, false_injections: int) -> None:
    """The counts measured when recall was tuned, and the issue's token ceiling."""
    pos, neg = s["positives"], s["negatives"]
    assert pos["hit1"] >= hit1
    assert pos["recall3"] >= recall3
    assert neg["false_injections"] <= false_injections
    assert pos["tokens_median"] <= 400
