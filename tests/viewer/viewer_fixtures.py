"""Test data for the viewer: a home folder with two projects and a global layer, a live server.

The project memory has every shape the page must handle: refs inside the layer and
across to the global layer, a dangling ref, a superseded block, Markdown bodies, a
desc that is an XSS attempt, and enough filler that a search target sits below the
first screen.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from agd_memory.settings import Settings

XSS_DESC = "<img src=x onerror=alert(1)>"
FILLER = 40
"""Filler blocks before the project section, so a search target starts off-screen."""


def project_memory() -> str:
    filler = "\n".join(
        f'@x-feedback desc="filler note {i:02d}" created="2026-08-{1 + i % 28:02d}" [#filler-{i:02d}]\n'
        f"~~~\nNothing to see in note {i}: plain filler text.\n~~~\n"
        for i in range(FILLER)
    )
    return f"""@meta format=agd version=1 [#meta]

@h1 Harbor shop memory [#root]

@h2 User [#h-user]

@x-user desc="Lena: backend developer, owns billing" keys="payments owner, fatturazione" created="2026-09-02" [#user-lena]
~~~
Lena maintains the **billing service** (Python 3.12, FastAPI, Postgres 16).
~~~

@h2 Feedback [#h-feedback]

@x-feedback desc="tests run against a real Postgres" created="2026-09-05" updated="2026-10-12" refs="#decision-invoices,#pref-no-emoji" [#feedback-tests]
~~~
Integration tests use a real Postgres started by `make db-up`.

- never mock the repository layer
- see #decision-invoices for why
~~~

@x-feedback desc="{XSS_DESC}" created="2026-09-06" [#xss-desc]
~~~
<script>window.__pwned = 1</script> **bold** <img src=x onerror="window.__pwned = 2">
[click](javascript:window.__pwned=3) ![remote](https://images.example.com/x.png)
~~~

@h2 Reference [#h-reference]

{filler}
@h2 Project [#h-project]

@x-project desc="invoice numbers come from a gapless counter table" created="2026-09-10" status="open" refs="#user-lena,#no-such-block" [#decision-invoices]
~~~
We allocate invoice numbers in a counter table, never a database sequence:
a rolled-back transaction must not leave a gap. Only this body says zanzibar.
~~~

@x-project desc="invoice numbers from a Postgres sequence" created="2026-09-01" status="superseded" [#old-invoices]
~~~
Use a Postgres sequence for invoice numbers.
~~~

@x-project desc="credit notes share the invoice counter" created="2026-10-01" status="done" supersedes="#old-invoices" refs="#decision-invoices" [#credit-notes]
~~~
Credit notes take their number from the same counter as #decision-invoices.
~~~
"""


GLOBAL_MEMORY = """@meta format=agd version=1 [#meta]

@h1 Global memory [#root]

@h2 Feedback [#h-feedback]

@x-feedback desc="no emojis in code, commits or replies" created="2025-10-09" [#pref-no-emoji]
~~~
Do not use emojis in code, comments, commit messages or chat replies.
~~~

@x-reference desc="team wiki lives in Notion" created="2025-11-01" refs="#pref-no-emoji" [#ref-wiki]
~~~
The team wiki: onboarding, runbooks, the on-call rota.
~~~
"""

OTHER_MEMORY = """@meta format=agd version=1 [#meta]

@h1 Other project [#root]

@h2 Project [#h-project]

@x-project desc="the other project uses Go" created="2026-01-01" [#other-go]
~~~
Go 1.22 and sqlc.
~~~
"""


@dataclass
class Home:
    root: Path
    project: Path
    other: Path
    global_: Path
    settings: Settings
    env: dict[str, str]


def write(path: Path, text: str, mtime: float | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def make_home(tmp_path: Path, project: Path, other: Path, global_: Path) -> Home:
    """A `Home` whose settings and environment find `project` and `global_` under
    `tmp_path/home` (the files are written by the caller)."""
    root = tmp_path / "home"
    env = {
        "HOME": str(root),
        "AGD_MEMORY_HOME": str(root),
        "AGD_MEMORY_FILE": str(project),
        "CLAUDE_PLUGIN_DATA": str(tmp_path / "data"),
        "PATH": os.environ.get("PATH", ""),
    }
    return Home(root, project, other, global_, Settings.load(env), env)
