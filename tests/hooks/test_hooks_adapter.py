"""The hook adapter itself: output shape, silence, fail-open, guard, debug lines.

`toc.render` and `distill.hook.session_end` are replaced by recording doubles here, so
these tests pin what the adapter promises whatever they answer; the prompt hook runs
the real recall over a real memory file (milliseconds); `test_hooks_integration.py`
runs the hooks as processes.
"""

from __future__ import annotations

import json
import sys
import types
from dataclasses import dataclass, field
from typing import Any

import pytest
from hookutil import (
    PROJECT_MEMORY,
    STORED_FACT,
    context_of,
    debug_log,
    load_payload,
    run_main,
    write_layer,
)

import agd_memory
from agd_memory.claude import hooks
from agd_memory.toc import budget_tokens

FILES = ["<project file>", "<global file>"]


@dataclass
class Calls:
    memory_files: list[tuple[str, str]] = field(default_factory=list)
    toc: list[tuple[Any, Any]] = field(default_factory=list)
    recall: list[tuple[str, Any]] = field(default_factory=list)
    distill: list[dict[str, Any]] = field(default_factory=list)
    toc_count: Any = None


@dataclass
class FakeResult:
    skipped: str | None
    chosen: list[Any]
    text: str = ""

    def render(self) -> str:
        return self.text


@dataclass
class FakeEntry:
    id: str


def install(monkeypatch: pytest.MonkeyPatch, name: str, **attrs: Any) -> types.ModuleType:
    """Put a module double at `agd_memory.<name>` (sys.modules and the package attribute)."""
    module = types.ModuleType(f"agd_memory.{name}")
    for key, value in attrs.items():
        setattr(module, key, value)
    monkeypatch.setitem(sys.modules, f"agd_memory.{name}", module)
    parent, _, leaf = f"agd_memory.{name}".rpartition(".")
    monkeypatch.setattr(sys.modules[parent], leaf, module, raising=False)
    return module


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch, hook_env: dict[str, str]) -> Calls:
    record = Calls()

    def memory_files(
        settings: Any, cwd: str, *, scope: str = "all", left_out: Any = None
    ) -> list[str]:
        record.memory_files.append((cwd, scope))
        return list(FILES)

    monkeypatch.setattr(hooks, "memory_files", memory_files)
    return record


def use_toc(monkeypatch: pytest.MonkeyPatch, calls: Calls, text: str | Exception) -> None:
    def render(files: Any, settings: Any, *, count: Any = None, **footer: str) -> str:
        calls.toc.append((files, settings))
        calls.toc_count = count
        if isinstance(text, BaseException):
            raise text
        return text

    install(monkeypatch, "toc", render=render)


def use_recall(monkeypatch: pytest.MonkeyPatch, calls: Calls, result: FakeResult) -> None:
    def recall(prompt: str, files: Any, settings: Any) -> FakeResult:
        calls.recall.append((prompt, files))
        return result

    install(monkeypatch, "recall", recall=recall)


# -- SessionStart -------------------------------------------------------------------------


def test_session_start_outputs_toc_as_additional_context(monkeypatch, capsys, calls) -> None:
    use_toc(monkeypatch, calls, "agd-memory: 2 entries\n- #a  first")
    payload = load_payload("session-start-startup", cwd="/somewhere/project")
    status, out, err = run_main(["session-start"], json.dumps(payload), monkeypatch, capsys)
    assert status == 0
    assert context_of(out, "SessionStart") == "agd-memory: 2 entries\n- #a  first"
    assert out.count("\n") == 1  # one JSON object, one line
    assert calls.memory_files == [("/somewhere/project", "all")]
    files, settings = calls.toc[0]
    assert files == FILES and settings.toc_token_budget == 2000
    # The budget is counted with toc's own cheap estimate (no tokenizer load in a hook),
    # the one every TOC reader uses: chars/2.8.
    assert calls.toc_count is None
    assert budget_tokens("x" * 28) == 10 and budget_tokens("x" * 29) == 11


@pytest.mark.parametrize("text", ["", "   \n"])
def test_session_start_silent_when_toc_empty(monkeypatch, capsys, calls, text) -> None:
    use_toc(monkeypatch, calls, text)
    status, out, _ = run_main(["session-start"], "{}", monkeypatch, capsys)
    assert (status, out) == (0, "")


def test_session_start_silent_without_memory(monkeypatch, capsys, calls) -> None:
    use_toc(monkeypatch, calls, "never used")
    monkeypatch.setattr(hooks, "memory_files", lambda *a, **k: [])
    status, out, _ = run_main(["session-start"], "{}", monkeypatch, capsys)
    assert (status, out, calls.toc) == (0, "", [])


# -- UserPromptSubmit: the real recall over a real memory (it runs in milliseconds) -----


def prompt_hook(
    monkeypatch, capsys, project, text: str, **fields: str
) -> tuple[int, str, str]:
    payload = load_payload("prompt-english", cwd=str(project), prompt=text)
    payload.update(fields)
    return run_main(["prompt"], json.dumps(payload), monkeypatch, capsys)


@pytest.fixture
def memory(project, hook_env) -> None:
    write_layer(hook_env, project, PROJECT_MEMORY)


def test_prompt_outputs_recall(monkeypatch, capsys, project, memory) -> None:
    status, out, _ = prompt_hook(monkeypatch, capsys, project, STORED_FACT)
    assert status == 0
    context = context_of(out, "UserPromptSubmit")
    assert "[#project-staging-pgbouncer]" in context
    assert "6432" in context
    assert out.count("\n") == 1  # one JSON object, one line


def test_prompt_reads_legacy_user_prompt(monkeypatch, capsys, project, memory) -> None:
    payload = load_payload("prompt-legacy-user-prompt", cwd=str(project), user_prompt=STORED_FACT)
    _, out, _ = run_main(["prompt"], json.dumps(payload), monkeypatch, capsys)
    assert "[#project-staging-pgbouncer]" in context_of(out, "UserPromptSubmit")


def test_prompt_skipped_is_silent_and_debug_says_why(monkeypatch, capsys, project, memory) -> None:
    monkeypatch.setenv("AGD_RECALL_DEBUG", "1")
    status, out, err = prompt_hook(
        monkeypatch, capsys, project, "write a haiku about the autumn leaves falling"
    )
    assert (status, out) == (0, "")
    assert "recall: skip: creative_request" in err


def test_prompt_debug_lists_chosen_ids(monkeypatch, capsys, project, memory) -> None:
    monkeypatch.setenv("AGD_RECALL_DEBUG", "1")
    _, out, err = prompt_hook(monkeypatch, capsys, project, STORED_FACT)
    assert "[#project-staging-pgbouncer]" in context_of(out, "UserPromptSubmit")
    assert "injected 1 block(s): ['project-staging-pgbouncer']" in err


def test_prompt_debug_off_keeps_stderr_empty(monkeypatch, capsys, project, memory) -> None:
    _, _, err = prompt_hook(monkeypatch, capsys, project, STORED_FACT)
    assert err == ""


def test_prompt_disabled_never_recalls(monkeypatch, capsys, project, memory, hook_env) -> None:
    monkeypatch.setenv("AGD_RECALL_DISABLED", "1")
    status, out, _ = prompt_hook(monkeypatch, capsys, project, STORED_FACT)
    assert (status, out) == (0, "")
    assert "recall: skip: disabled_via_env" in debug_log(hook_env)


def test_prompt_disabled_zero_means_on(monkeypatch, capsys, project, memory) -> None:
    # The earlier plugin treated AGD_RECALL_DISABLED=0 as "disabled".
    monkeypatch.setenv("AGD_RECALL_DISABLED", "0")
    _, out, _ = prompt_hook(monkeypatch, capsys, project, STORED_FACT)
    assert "[#project-staging-pgbouncer]" in context_of(out, "UserPromptSubmit")


def test_prompt_no_global_reads_project_layer_only(monkeypatch, capsys, project, hook_env) -> None:
    write_layer(hook_env, project, PROJECT_MEMORY, "global")  # the fact is in the global layer
    _, out, _ = prompt_hook(monkeypatch, capsys, project, STORED_FACT)
    assert "[#project-staging-pgbouncer]" in context_of(out, "UserPromptSubmit")
    monkeypatch.setenv("AGD_RECALL_NO_GLOBAL", "1")
    _, out, _ = prompt_hook(monkeypatch, capsys, project, STORED_FACT)
    assert out == ""


def test_empty_prompt_is_silent(monkeypatch, capsys, project, memory, hook_env) -> None:
    status, out, _ = prompt_hook(monkeypatch, capsys, project, "  ")
    assert (status, out) == (0, "")
    assert "recall: skip: prompt_empty" in debug_log(hook_env)


def test_prompt_without_memory_is_silent(monkeypatch, capsys, project, hook_env) -> None:
    status, out, _ = prompt_hook(monkeypatch, capsys, project, STORED_FACT)
    assert (status, out) == (0, "")
    assert "recall: skip: memory_file_missing" in debug_log(hook_env)


# -- SessionEnd ---------------------------------------------------------------------------


def test_session_end_hands_payload_to_distiller(monkeypatch, capsys, calls) -> None:
    seen: list[tuple[dict[str, Any], Any]] = []
    install(monkeypatch, "distill", __path__=[])
    install(
        monkeypatch,
        "distill.hook",
        session_end=lambda payload, settings: seen.append((payload, settings)),
    )
    payload = load_payload("session-end-other")
    status, out, _ = run_main(["session-end"], json.dumps(payload), monkeypatch, capsys)
    assert (status, out) == (0, "")
    assert seen[0][0] == payload


# -- fail open, guard, limits -------------------------------------------------------------


@pytest.mark.parametrize(
    "error", [RuntimeError("boom"), SystemExit(3), OSError("disk"), ValueError("bad")]
)
def test_any_failure_exits_zero_silently_and_logs(
    monkeypatch, capsys, calls, hook_env, error
) -> None:
    use_toc(monkeypatch, calls, error)
    status, out, _ = run_main(["session-start"], "{}", monkeypatch, capsys)
    assert (status, out) == (0, "")
    assert f"hook session-start: failed open: {type(error).__name__}" in debug_log(hook_env)


def test_missing_domain_module_fails_open(monkeypatch, capsys, calls, hook_env) -> None:
    # Both entries: once the package is imported, `from .distill import hook` would
    # otherwise find `hook` as an attribute of the cached package and never fail.
    monkeypatch.setitem(sys.modules, "agd_memory.distill", None)  # import raises
    monkeypatch.setitem(sys.modules, "agd_memory.distill.hook", None)
    monkeypatch.delattr(agd_memory, "distill", raising=False)
    status, out, _ = run_main(
        ["session-end"], json.dumps(load_payload("session-end-other")), monkeypatch, capsys
    )
    assert (status, out) == (0, "")
    assert "failed open" in debug_log(hook_env)


def test_guard_exits_before_reading_stdin(monkeypatch, capsys, calls) -> None:
    monkeypatch.setenv("AGD_DISTILL_GUARD", "1")
    use_toc(monkeypatch, calls, "toc")

    class Exploding:
        @property
        def buffer(self) -> Any:
            raise AssertionError("stdin read under the guard")

    monkeypatch.setattr(sys, "stdin", Exploding())
    assert hooks.main(["session-start"]) == 0
    assert capsys.readouterr().out == ""
    assert calls.toc == [] and calls.memory_files == []


def test_malformed_stdin_still_answers_for_process_cwd(monkeypatch, capsys, calls) -> None:
    use_toc(monkeypatch, calls, "toc text")
    status, out, _ = run_main(["session-start"], b"\x00{garbage", monkeypatch, capsys)
    assert context_of(out, "SessionStart") == "toc text"
    assert calls.memory_files == [("", "all")]  # "" -> the resolver uses the process folder


def test_long_context_is_cut_under_claude_code_limit(monkeypatch, capsys, calls) -> None:
    lines = "\n".join(f"- #entry-{i:05d}  description number {i}" for i in range(2000))
    use_toc(monkeypatch, calls, lines)
    _, out, _ = run_main(["session-start"], "{}", monkeypatch, capsys)
    context = context_of(out, "SessionStart")
    assert len(context) <= 10_000
    assert context.endswith("agd_memory_toc lists it)")
    assert "- #entry-00000" in context and "- #entry-01999" not in context
    assert all(line.startswith("- #entry-") for line in context.splitlines()[:-1])  # whole lines


def test_non_ascii_context_survives(monkeypatch, capsys, calls) -> None:
    use_toc(monkeypatch, calls, "perché è così — ✓")
    _, out, _ = run_main(["session-start"], "{}", monkeypatch, capsys)
    assert context_of(out, "SessionStart") == "perché è così — ✓"


@pytest.mark.parametrize("argv", [[], ["bogus"], ["prompt", "extra"]])
def test_usage_errors(monkeypatch, capsys, argv) -> None:
    status, out, err = run_main(argv, "{}", monkeypatch, capsys)
    assert status == 2 and out == ""
    assert "session-start|prompt|session-end" in err


def test_help(monkeypatch, capsys) -> None:
    status, out, _ = run_main(["--help"], "", monkeypatch, capsys)
    assert status == 0 and "session-start|prompt|session-end" in out
