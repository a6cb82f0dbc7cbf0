"""Two server processes saving into one memory at once lose nothing.

Each process gets all its save requests at once (pipelined), so saves also run
concurrently inside a process (the SDK runs each call in a worker thread), and
the memory file does not exist at the start, so the first saves race to create it.
"""

from __future__ import annotations

import sys

import pytest
from mcp_fixtures import LAUNCHER

from agd_memory import store

pytestmark = pytest.mark.slow

PER_SERVER = 20


def test_two_servers_saving_at_once_lose_nothing(empty_memory, spawn):
    servers = [
        spawn([sys.executable, str(LAUNCHER)], empty_memory.process_env(), empty_memory.project_dir)
        for _ in range(2)
    ]
    for s in servers:
        s.initialize()
    pending = []
    for n in range(PER_SERVER):
        for k, s in enumerate(servers):
            args = {
                "kind": "x-project",
                "id": f"s{k}-block-{n}",
                "content": f"Block {n} from server {k}.",
                "desc": f"server {k} block {n}",
            }
            pending.append(
                (s, s.send("tools/call", {"name": "agd_memory_save", "arguments": args}))
            )
    for s, request_id in pending:
        result = s.receive(request_id)["result"]
        assert not result.get("isError"), result
    for s in servers:
        status, _, err = s.close()
        assert status == 0, err

    memory = store.MemoryFile(
        empty_memory.project_file, layer="project", settings=empty_memory.settings
    )
    ids = {e.id for e in memory.entries() if e.is_memory}
    expected = {f"s{k}-block-{n}" for k in range(2) for n in range(PER_SERVER)}
    assert ids == expected
    for entry in memory.entries():
        if entry.is_memory:
            k, n = entry.id[1], entry.id.rsplit("-", 1)[1]
            assert entry.body.strip() == f"Block {n} from server {k}."
