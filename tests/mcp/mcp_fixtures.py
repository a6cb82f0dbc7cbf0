"""Shared data and clients for the MCP server tests: two memory layers on disk and ways to call the tools.

`tool(name, args)` goes through the SDK's in-memory client session (the same
JSON-RPC the model's client sends); `StdioServer` talks to a real server process
over pipes, line by line, so a test can check every byte it writes to stdout.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import anyio

import mcp
from agd_memory.mcp.app import build_server
from agd_memory.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = ROOT / "bin" / "agd-memory-mcp"
TODAY = "2026-06-25"
INIT_LINE = (
    json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "agd-memory-tests", "version": "0"},
            },
        }
    )
    + "\n"
)
"""One initialize request, for tests that only check a server starts."""

PROJECT_TEXT = """\
@meta format=agd version=1 [#meta]

@h1 Memoria di sessione [#root]

@h2 User [#h-user]

@h2 Feedback [#h-feedback]

@x-feedback desc="Run the linter before committing" created="2026-05-02" updated="2026-05-02" refs="#deploy" [#lint-first]
~~~
Always run ruff before a commit. This applies to #deploy work too.
~~~

@h2 Project [#h-project]

@x-project desc="How we deploy to staging" created="2026-06-01" updated="2026-06-20" status="open" refs="#db-choice" [#deploy]
~~~
Deploy with `make deploy STAGE=staging`; the database is chosen in #db-choice.
~~~

@x-project desc="Database choice: Postgres 16" created="2026-03-10" updated="2026-03-10" refs="#pg-tuning" [#db-choice]
~~~
We use Postgres 16 for the orders service. Tuning notes in #pg-tuning.
~~~

@x-project desc="Postgres tuning notes" created="2026-03-11" updated="2026-03-11" status="done" [#pg-tuning]
~~~
shared_buffers = 2GB; work_mem = 64MB.
~~~

@h2 Reference [#h-reference]

@x-reference desc="Runbook location" created="2026-04-01" updated="2026-04-01" refs="#deploy" [#runbook]
~~~
The runbook lives in docs/runbook.md and covers #deploy rollbacks.
~~~
"""

GLOBAL_TEXT = """\
@meta format=agd version=1 [#meta]

@h1 Memoria di sessione [#root]

@h2 User [#h-user]

@x-user desc="Prefers short answers in English" created="2026-01-05" updated="2026-01-05" [#answer-style]
~~~
The user prefers short, direct answers, in English.
~~~

@h2 Feedback [#h-feedback]

@h2 Project [#h-project]

@h2 Reference [#h-reference]
"""

PROJECT_IDS = ["lint-first", "deploy", "db-choice", "pg-tuning", "runbook"]


class Memory:
    """A project folder, a project memory file and a global one, with settings pointing at them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.project_dir = root / "project"
        self.project_dir.mkdir()
        self.project_file = root / "mem" / "memory.agd"
        self.global_file = root / "mem" / "global.agd"
        self.data_dir = root / "data"
        self.env = {
            "AGD_MEMORY_HOME": str(root / "home"),
            "AGD_MEMORY_FILE": str(self.project_file),
            "AGD_MEMORY_GLOBAL_FILE": str(self.global_file),
            "AGD_MEMORY_TODAY": TODAY,
            "CLAUDE_PLUGIN_DATA": str(self.data_dir),
            "AGD_DISTILL_KEYS_EVERY_S": "0",  # no background keys run per save
        }
        self.settings = Settings.load(self.env)

    def seed(self, project: str | None = PROJECT_TEXT, global_: str | None = GLOBAL_TEXT) -> None:
        self.project_file.parent.mkdir(parents=True, exist_ok=True)
        if project is not None:
            self.project_file.write_text(project, encoding="utf-8")
        if global_ is not None:
            self.global_file.write_text(global_, encoding="utf-8")

    def server(self) -> Any:
        return build_server(self.settings, self.project_dir)

    def process_env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AGD_", "CLAUDE_"))}
        env.update(self.env)
        env["PYTHONPATH"] = str(ROOT / "src")
        env.update(extra)
        return env


class Result:
    def __init__(self, is_error: bool, text: str) -> None:
        self.is_error = is_error
        self.text = text

    def __repr__(self) -> str:
        return f"Result(is_error={self.is_error}, text={self.text!r})"


def call_tools(server: Any, calls: list[tuple[str, dict[str, Any]]]) -> list[Result]:
    """Call tools in order in one in-memory client session; the results, as the model reads them."""
    return anyio.run(_call, server, calls)


async def _call(server: Any, calls: list[tuple[str, dict[str, Any]]]) -> list[Result]:
    out = []
    async with mcp.Client(server) as client:
        for name, args in calls:
            r = await client.call_tool(name, args)
            text = "\n".join(getattr(c, "text", "") for c in r.content)
            out.append(Result(bool(r.is_error), text))
    return out


class StdioServer:
    """A server process driven over real pipes with newline-delimited JSON-RPC."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
            text=True,
            encoding="utf-8",
        )
        self.next_id = 0
        self.stdout_lines: list[str] = []
        self.replies: dict[int, dict[str, Any]] = {}

    def send(
        self, method: str, params: dict[str, Any] | None = None, *, notify: bool = False
    ) -> int:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        if not notify:
            self.next_id += 1
            msg["id"] = self.next_id
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        return self.next_id

    def receive(self, request_id: int) -> dict[str, Any]:
        """The reply to `request_id`; replies may come in any order, others are kept for later."""
        assert self.proc.stdout is not None
        while request_id not in self.replies:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"server closed stdout; stderr: {self.stderr_text()}")
            self.stdout_lines.append(line)
            msg = json.loads(line)  # anything that is not JSON-RPC fails the test here
            assert msg.get("jsonrpc") == "2.0", line
            if "id" in msg:
                self.replies[msg["id"]] = msg
        return self.replies.pop(request_id)

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.receive(self.send(method, params))

    def initialize(self) -> dict[str, Any]:
        reply = self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "agd-memory-tests", "version": "0"},
            },
        )
        self.send("notifications/initialized", notify=True)
        return reply

    def call(self, name: str, args: dict[str, Any]) -> Result:
        reply = self.request("tools/call", {"name": name, "arguments": args})
        result = reply["result"]
        text = "\n".join(c.get("text", "") for c in result["content"])
        return Result(bool(result.get("isError")), text)

    def close(self) -> tuple[int, str, str]:
        """Close stdin (the client going away) and return (exit status, rest of stdout, stderr)."""
        try:  # communicate() closes stdin first
            out, err = self.proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
        return self.proc.returncode, out, err

    def stderr_text(self) -> str:
        if self.proc.poll() is None:
            self.proc.kill()
        return self.proc.stderr.read() if self.proc.stderr else ""
