"""A memory file that does not parse, met by the real `claude` CLI: the model is told in one
factual line which file and line are broken and still gets the layers that work; the
user is told too, and nothing pretends the file is empty."""

from __future__ import annotations

import json

import pytest
from test_plugin_e2e import MEMORY, first_conversation

pytestmark = pytest.mark.e2e

GLOBAL = """@x-user desc="prefers tabs over spaces in Go code" [#user-go-tabs]
~~~
Go code uses gofmt's tabs; never reformat to spaces.
~~~
"""


def test_a_broken_project_file_is_named_to_the_model_and_the_global_layer_still_arrives(
    claude, e2e_project
) -> None:
    broken = MEMORY + '\n@x-project desc="unterminated [#half-written]\n'
    path = e2e_project.write_memory(broken)
    e2e_project.write_memory(GLOBAL, layer="global")
    run = claude("hello", args=["--output-format", "stream-json", "--verbose"])
    text = first_conversation(run).message_text()
    assert str(path) in text and "does not parse" in text, text[-3000:]
    assert "user-go-tabs" in text, "the global layer still reaches the model"
    assert "project-staging-pgbouncer" not in text, "no entry of the broken file is made up"
    # the user is told too: the hook's systemMessage is in the CLI's hook events
    events = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    hooks = [e for e in events if e.get("type") == "system" and "hook" in str(e.get("subtype"))]
    said = [
        json.loads(e["output"]).get("systemMessage", "")
        for e in hooks
        if e.get("output", "").startswith("{")
    ]
    assert any("does not parse" in line and str(path) in line for line in said), hooks
    assert path.read_text(encoding="utf-8") == broken, "the file is left as it is"
