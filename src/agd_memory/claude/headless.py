"""Run `claude -p` with no tools and a JSON schema: the only place the model is called.

Generic: the caller gives the system prompt, the message and the answer's schema
(the distiller's is `distill/schema.py`, the search keys' `distill/keys.py`) and
gets the list in the schema's one required field, unvalidated: checking it
against the schema's limits is the caller's job.

The child gets `--tools ""` (no built-in tools: it cannot run a command, read
or write a file), `--safe-mode` (no plugins, hooks, skills, MCP servers — so
our own hooks cannot fire inside it), `--no-session-persistence` (it leaves no
transcript to distil later) and `AGD_DISTILL_GUARD=1` in its environment
(every hook of ours exits at once if one runs anyway). It runs in its own
process group in an empty folder, so a time limit kills it and everything it
started.

Failures are sorted in two: transient ones (a time-out, a rate limit, an
overloaded or unreachable API) are retried with linear backoff; anything else
is permanent and reported once.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..settings import Settings

GUARD_ENV = "AGD_DISTILL_GUARD"

# Words in a failed run's output that mean "try again later".
TRANSIENT = re.compile(
    r"rate.?limit|\b429\b|overload|\b5(?:00|02|03|04|29)\b|timed? ?out|timeout|ECONNRESET|ECONNREFUSED|"
    r"ETIMEDOUT|ENOTFOUND|EAI_AGAIN|socket hang up|network|connection (?:error|refused|reset)|"
    r"temporarily unavailable|try again",
    re.IGNORECASE,
)
UNKNOWN_SAFE_MODE = re.compile(r"unknown option.{0,4}--safe-mode", re.IGNORECASE)


class DistillFailed(Exception):
    """The headless run gave no usable answer."""

    def __init__(self, message: str, *, transient: bool, attempts: int = 1) -> None:
        super().__init__(message)
        self.transient = transient
        self.attempts = attempts


@dataclass
class Answer:
    items: list[object]
    """The raw items of the schema's result field (the distiller's proposals), unvalidated."""
    attempts: int
    cost_usd: float | None = None


def command(
    settings: Settings,
    system_prompt: str,
    schema: dict[str, object],
    *,
    safe_mode: bool = True,
) -> list[str]:
    """The argv of one headless run (the message goes on stdin)."""
    exe = shutil.which(settings.distill_claude) or settings.distill_claude
    argv = [exe, "-p"]
    if safe_mode:
        argv.append("--safe-mode")
    else:  # Claude Code older than 2.1.169: the next-best way to load no hooks or MCP servers
        argv += ["--settings", '{"disableAllHooks": true}', "--strict-mcp-config"]
    argv += [
        "--no-session-persistence",
        "--tools",
        "",
        "--model",
        settings.distill_model,
        "--output-format",
        "json",
        "--json-schema",
        json.dumps(schema, separators=(",", ":")),
        "--system-prompt",
        system_prompt,
    ]
    return argv


# What a hook inherits from the Claude Code session that ran it. Passed on, it would make
# the headless run look like a nested child of a session that has already ended.
SESSION_VARIABLES = (
    "CLAUDECODE",
    "CLAUDE_CODE_SESSION_ID",
    "CLAUDE_CODE_CHILD_SESSION",
    "CLAUDE_CODE_ENTRYPOINT",
    "CLAUDE_CODE_SESSION_ATTENDED",
    "CLAUDE_CODE_CHILD_NOTES_DIR",
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_ENV_FILE",
    "CLAUDE_PID",
    "CLAUDE_PLUGIN_ROOT",
    "CLAUDE_PLUGIN_DATA",
)


def child_env() -> dict[str, str]:
    """Our environment (credentials, config dir, proxies) minus the ended session's identity, plus the guard."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in SESSION_VARIABLES and not k.startswith("CLAUDE_CODE_MESSAGING_")
    }
    env[GUARD_ENV] = "1"
    return env


def ask(
    settings: Settings,
    system_prompt: str,
    message: str,
    schema: dict[str, object],
    *,
    log: Callable[[str], None],
    sleep: Callable[[float], None] = time.sleep,
) -> Answer:
    """Run the headless pass, retrying transient failures; raise DistillFailed when it gives up.

    `schema` is the answer's JSON schema, an object with one required field that holds a
    list; the Answer carries that list."""
    required = schema["required"]
    if not isinstance(required, list) or len(required) != 1:
        raise ValueError("the answer's schema must require exactly one field")
    result_field = str(required[0])
    if shutil.which(settings.distill_claude) is None:
        raise DistillFailed(
            f"`{settings.distill_claude}` not found on PATH (set AGD_DISTILL_CLAUDE)",
            transient=False,
        )
    attempts = max(1, settings.distill_retries)
    safe_mode = True

    def attempt() -> Answer:
        argv = command(settings, system_prompt, schema, safe_mode=safe_mode)
        return _once(settings, argv, message, result_field)

    for n in range(1, attempts + 1):
        try:
            try:
                answer = attempt()
            except DistillFailed as exc:
                if not (safe_mode and UNKNOWN_SAFE_MODE.search(str(exc))):
                    raise
                log(
                    "this claude has no --safe-mode; using --settings disableAllHooks + --strict-mcp-config"
                )
                safe_mode = False
                answer = attempt()
            answer.attempts = n
            return answer
        except DistillFailed as exc:
            exc.attempts = n
            if not exc.transient:
                raise exc from None
            if n == attempts:
                raise DistillFailed(
                    f"giving up after {n} attempts: {exc}", transient=True, attempts=n
                ) from None
            delay = n * settings.distill_backoff_s
            log(f"attempt {n}/{attempts} failed ({exc}); retrying in {delay:g}s")
            sleep(delay)
    raise AssertionError("unreachable")  # pragma: no cover


def _once(settings: Settings, argv: list[str], message: str, field: str) -> Answer:
    with tempfile.TemporaryDirectory(prefix="agd-distill-") as sandbox:
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=sandbox,
                env=child_env(),
                start_new_session=True,
            )
        except OSError as exc:
            raise DistillFailed(f"cannot start {argv[0]}: {exc}", transient=False) from None
        try:
            out, err = proc.communicate(message.encode("utf-8"), timeout=settings.distill_timeout_s)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            proc.communicate()
            raise DistillFailed(
                f"timed out after {settings.distill_timeout_s:g}s", transient=True
            ) from None
    stdout = out.decode("utf-8", "replace")
    stderr = err.decode("utf-8", "replace")
    result = _result_object(stdout)
    if proc.returncode != 0 or result is None or result.get("is_error"):
        raise _failure(proc.returncode, result, stdout, stderr)
    structured = result.get("structured_output")
    if structured is None and isinstance(result.get("result"), str):
        try:
            structured = json.loads(result["result"])
        except (ValueError, RecursionError):  # RecursionError: nested deeper than Python parses
            structured = None
    if not isinstance(structured, dict) or not isinstance(structured.get(field), list):
        raise DistillFailed(f"the answer holds no structured `{field}` list", transient=False)
    cost = result.get("total_cost_usd")
    return Answer(structured[field], 1, cost if isinstance(cost, (int, float)) else None)


def _failure(code: int | None, result: dict | None, stdout: str, stderr: str) -> DistillFailed:
    status = result.get("api_error_status") if result else None
    detail = ""
    if result:
        detail = str(result.get("result") or result.get("subtype") or "")
    text = " ".join(x for x in (detail, stderr.strip(), "" if result else stdout.strip()) if x)
    text = " ".join(text.split())[:300] or "no output"
    if isinstance(status, int):
        transient = status == 429 or status >= 500
    else:
        transient = bool(TRANSIENT.search(text))
    return DistillFailed(f"exit {code}: {text}", transient=transient)


def _result_object(stdout: str) -> dict | None:
    """The `type: result` object: the whole output, or its last JSON line (stream-json)."""
    text = stdout.strip()
    candidates = [text] + text.splitlines()[::-1]
    for candidate in candidates:
        try:
            data = json.loads(candidate)
        except (ValueError, RecursionError):  # RecursionError: nested deeper than Python parses
            continue
        if isinstance(data, dict) and data.get("type", "result") == "result":
            return data
    return None


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # pragma: no cover
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass
