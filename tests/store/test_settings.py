"""Settings: one table of variables, defaults stated once, environment over config file."""

from __future__ import annotations

import json
from pathlib import Path

from agd_memory.settings import FIELDS, VARIABLES, Settings


def test_every_variable_is_a_field_in_table_order_with_the_tables_default() -> None:
    assert list(FIELDS[: len(VARIABLES)]) == [v.attr for v in VARIABLES]
    defaults = Settings()
    for var in VARIABLES:
        assert getattr(defaults, var.attr) == var.default, var.name


def test_environment_beats_config_file_beats_default(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "recall.json").write_text(
        json.dumps({"AGD_RECALL_TOP_K": 5, "AGD_RECALL_MIN_WORDS": 4}), encoding="utf-8"
    )
    s = Settings.load({"CLAUDE_PLUGIN_DATA": str(data), "AGD_RECALL_TOP_K": "7"})
    assert (s.recall_top_k, s.recall_min_words, s.recall_token_budget) == (7, 4, 1200)
    assert s.sources == {"recall_top_k": "env", "recall_min_words": "config file"}


def test_bad_number_keeps_the_default_and_zero_is_off(tmp_path: Path) -> None:
    env = {
        "CLAUDE_PLUGIN_DATA": str(tmp_path),
        "AGD_RECALL_TOP_K": "many",
        "AGD_RECALL_DISABLED": "0",
    }
    s = Settings.load(env)
    assert s.recall_top_k == 3
    assert s.recall_disabled is False
