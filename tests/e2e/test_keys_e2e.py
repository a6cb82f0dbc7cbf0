"""End to end: `agd-memory keys --apply` asks the real `claude -p` (against the fake
Messages API) for search keys, and the keys land in the memory file through the store.

Skipped when `AGD_E2E_CLAUDE` is unset (see `tests/e2e/conftest.py`).
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from e2e_harness import REPO, Reply, base_env, claude_binary

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

MEMORY = """@meta format=agd version=1 [#meta]

@h1 Project memory [#root]

@h2 Project [#h-project]

@x-project desc="IVA arrotondata sul totale per aliquota" [#bug-iva]
~~~
L'IVA si calcola sul totale imponibile per aliquota, non riga per riga.
~~~

@x-project desc="backup su Dropbox" status=superseded [#backup-dropbox]
~~~
Copia notturna su Dropbox.
~~~
"""
KEYS = ["vat rounding", "cent off", "tax total", "centesimi"]


def test_keys_are_written_from_the_real_cli_answer(claude, fake_api, e2e_project) -> None:
    # `claude` (the fixture) is requested only so the harness skips this test without a CLI.
    answer = Reply.tool_use("StructuredOutput", {"entries": [{"id": "bug-iva", "keys": KEYS}]})
    fake_api.responder = lambda request: (
        answer if "StructuredOutput" in request.tool_names else None
    )
    memory = e2e_project.root / "memory.agd"
    memory.write_text(MEMORY, encoding="utf-8")
    env = {
        **base_env(e2e_project, fake_api.url),
        "AGD_DISTILL_CLAUDE": claude_binary() or "",
        "AGD_DISTILL_RETRIES": "1",
        "AGD_DISTILL_TIMEOUT_S": "90",
    }
    run = subprocess.run(
        [sys.executable, str(REPO / "bin" / "agd-memory"), "keys", str(memory), "--apply"],
        env=env,
        capture_output=True,
        text=True,
        timeout=150,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "#bug-iva: vat rounding, cent off, tax total, centesimi" in run.stdout
    text = memory.read_text(encoding="utf-8")
    assert 'keys="vat rounding, cent off, tax total, centesimi"' in text
    assert text.count("keys=") == 1, "the superseded entry gets none"

    (request,) = [r for r in fake_api.messages_requests() if "StructuredOutput" in r.tool_names]
    assert request.tool_names == ["StructuredOutput"], "the headless run is offered no other tool"
    sent = request.all_text()
    assert "You write search keys" in sent, "our prompt is the system prompt"
    assert "IVA arrotondata sul totale per aliquota" in sent
    assert "Dropbox" not in sent
    assert "en, it" in sent, "English plus the language the entry is written in"
