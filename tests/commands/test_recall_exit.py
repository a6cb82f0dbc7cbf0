"""`agd-memory recall` with a layer that does not load: the others are used, the exit is 1."""

from __future__ import annotations

from pathlib import Path

import pytest

from agd_memory.cli import main

GOOD = """@meta format=agd version=1 [#meta]

@x-project desc="deploy on the VPS with the release script" [#deploy-vps]
~~~
Run scripts/deploy.sh on the VPS.
~~~
"""


def test_recall_with_an_unreadable_layer_prints_the_rest_and_exits_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    good = tmp_path / "memory.agd"
    good.write_text(GOOD, encoding="utf-8")
    broken = tmp_path / "global.agd"
    broken.write_text("@x-user [#a]\n~~~\nno closing fence\n", encoding="utf-8")
    prompt = "how do we deploy the release script on the VPS?"
    for extra in ([], ["--json"]):
        rc = main(["recall", prompt, *extra, "--file", str(good), "--file", str(broken)])
        out, err = capsys.readouterr()
        assert "deploy-vps" in out
        assert str(broken) in err
        assert rc == 1, extra
