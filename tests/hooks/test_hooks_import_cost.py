"""What a hook process imports once its caches are warm: nothing it does not use.

A hook is a fresh interpreter on every prompt, so each module it imports is paid on
every prompt (benchmarks/hooks.py measures the time; this only pins the module set).
`dataclasses` brings `inspect`, `ast` and `dis`; `tempfile` brings `shutil`, `random`,
`bz2` and `lzma`; the parser is needed only when a cache is cold or a write happens.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hookutil import LAUNCHER, PROJECT_MEMORY, RUNNER, STORED_FACT, load_payload, write_layer

# Runs the launcher as hooks/run does (`-S`), then prints the imported module names on
# stderr's last line (stdout is the hook's JSON).
PROBE = """\
import json, sys
path = sys.argv[1]
sys.argv = sys.argv[1:]
code = compile(open(path, "rb").read(), path, "exec")
try:
    exec(code, {"__name__": "__main__", "__file__": path})
except SystemExit:
    pass
sys.stderr.write("\\n" + json.dumps(sorted(sys.modules)) + "\\n")
"""

NOT_ON_THE_HOOK_PATH = (
    "dataclasses",
    "inspect",
    "tempfile",
    "agd.parser",
)


RECALL_ON_THE_PROMPT_PATH = {
    "agd_memory.recall",
    "agd_memory.recall.analyzer",
    "agd_memory.recall.cognates",
    "agd_memory.recall.cooccurrence",
    "agd_memory.recall.engine",
    "agd_memory.recall.front",
    "agd_memory.recall.index",
    "agd_memory.recall.lexicon",
    "agd_memory.recall.policy",
    "agd_memory.recall.scoring",
    "agd_memory.recall.text",
}
"""What the prompt hook loads of recall: the pipeline, never search or the evaluation (and
the renderer only when a block is injected)."""


def imported_by(event: str, payload: dict, env: dict[str, str]) -> tuple[str, set[str]]:
    proc = subprocess.run(
        [sys.executable, "-S", "-c", PROBE, str(LAUNCHER), "hook", event],
        input=json.dumps(payload).encode(),
        env=env,
        capture_output=True,
        timeout=60,
        check=True,
    )
    modules = json.loads(proc.stderr.decode().strip().splitlines()[-1])
    return proc.stdout.decode(), set(modules)


@pytest.mark.parametrize(
    ("event", "payload_name", "extra"),
    [
        ("session-start", "session-start-startup", {}),
        ("prompt", "prompt-english", {"prompt": STORED_FACT}),
    ],
)
def test_warm_hook_imports_nothing_heavy(project, hook_env, event, payload_name, extra) -> None:
    write_layer(hook_env, project, PROJECT_MEMORY)
    payload = load_payload(payload_name, cwd=str(project), **extra)
    imported_by(event, payload, hook_env)  # cold: parses and writes the caches
    out, modules = imported_by(event, payload, hook_env)
    assert "project-staging-pgbouncer" in out  # the hook did its work
    assert not modules & set(NOT_ON_THE_HOOK_PATH)


def test_a_prompt_that_recalls_nothing_never_loads_the_store(project, hook_env) -> None:
    # recall reads its own cache of the analysis: the store (and the AGD renderer, the
    # refs graph, the lock) is loaded only to render a block that is injected
    write_layer(hook_env, project, PROJECT_MEMORY)
    payload = load_payload(
        "prompt-english", cwd=str(project), prompt="what will the weather be like in Rome tomorrow"
    )
    imported_by("prompt", payload, hook_env)  # cold: analyses and writes the caches
    out, modules = imported_by("prompt", payload, hook_env)
    assert out == ""
    assert {m for m in modules if m.startswith("agd_memory.recall")} == RECALL_ON_THE_PROMPT_PATH
    assert not {m for m in modules if m.startswith("agd_memory.store")}
    assert not modules & {"agd.serializer", "agd.parser", "agd.graph", "agd.lock", "agd.atomic"}
    # `typing` costs 3-5 ms, and each `typing.NamedTuple` compiles its fields' annotations:
    # the path's named tuples are `collections.namedtuple`s, type-only imports sit behind
    # `TYPE_CHECKING = False`
    assert "typing" not in modules


def test_a_prompt_that_injects_loads_the_store_but_not_the_parser(project, hook_env) -> None:
    write_layer(hook_env, project, PROJECT_MEMORY)
    payload = load_payload("prompt-english", cwd=str(project), prompt=STORED_FACT)
    imported_by("prompt", payload, hook_env)
    out, modules = imported_by("prompt", payload, hook_env)
    assert "project-staging-pgbouncer" in out
    recall_modules = {m for m in modules if m.startswith("agd_memory.recall")}
    assert recall_modules == RECALL_ON_THE_PROMPT_PATH | {"agd_memory.recall.render"}
    assert "agd.parser" not in modules


# A plugin root whose launcher runs the real one, then reports on stderr what the process
# imported and what `Path.as_uri` gives (`hooks/run` ends the process with `_exit`, so the
# probe must run inside the launcher it starts).
RUNNER_PROBE = """\
import json, sys
path = {launcher!r}
code = compile(open(path, "rb").read(), path, "exec")
try:
    exec(code, {{"__name__": "__main__", "__file__": path}})
except SystemExit:
    pass
modules = sorted(sys.modules)
import pathlib
uri = pathlib.Path("/a b").as_uri()
sys.stderr.write("\\n" + json.dumps({{"modules": modules, "uri": uri}}) + "\\n")
"""


def test_the_prompt_hook_process_never_imports_urllib(tmp_path, project, hook_env) -> None:
    # pathlib before Python 3.13 imports urllib.parse and ipaddress for `Path.as_uri`
    # alone (2.5 ms of every prompt): `hooks/run` loads them only when as_uri is called
    write_layer(hook_env, project, PROJECT_MEMORY)
    root = tmp_path / "plugin"
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "agd-memory").write_text(
        RUNNER_PROBE.format(launcher=str(LAUNCHER)), encoding="utf-8"
    )
    env = dict(hook_env, CLAUDE_PLUGIN_ROOT=str(root))
    payload = json.dumps(load_payload("prompt-english", cwd=str(project), prompt=STORED_FACT))
    for _ in range(2):  # the first run writes the caches
        proc = subprocess.run(
            ["sh", str(RUNNER), "prompt"],
            input=payload.encode(),
            env=env,
            capture_output=True,
            timeout=60,
            check=True,
        )
    assert "project-staging-pgbouncer" in proc.stdout.decode()  # the hook did its work
    probe = json.loads(proc.stderr.decode().strip().splitlines()[-1])
    assert "pathlib" in probe["modules"]
    assert not {"urllib.parse", "ipaddress"} & set(probe["modules"])
    assert probe["uri"] == "file:///a%20b"  # as_uri loads urllib.parse when it is called
