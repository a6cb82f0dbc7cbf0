"""One MCP request is bounded (each argument and the whole call), and a failure's text is
chosen by the error's type, never by its message."""

from __future__ import annotations

import pytest
from mcp_fixtures import call_tools

from agd_memory.errors import BlockNotFound, MemoryFileError, SaveRejected, SecretRejected
from agd_memory.mcp import tools as mcp_tools


def said(r) -> str:
    """The tool's own message, after the SDK's `Error executing tool NAME: `."""
    assert r.is_error and r.text.startswith("Error executing tool "), r.text
    return r.text.split(": ", 1)[1]


def test_a_50_mb_content_is_refused_and_nothing_is_written(tool, memory):
    before = memory.project_file.read_bytes()
    r = tool("agd_memory_save", {"kind": "x-project", "id": "huge", "content": "x" * 50_000_000})
    assert said(r).startswith("request refused: content has 50,000,000 characters")
    assert "the limit is 100,000" in r.text and "Nothing was read or written" in r.text
    assert memory.project_file.read_bytes() == before


@pytest.mark.parametrize(
    "name, args, says",
    [
        ("agd_memory_save", {"kind": "x-project", "id": "d", "content": "x", "desc": "d" * 1_001},
         "desc has 1,001 characters; the limit is 1,000"),
        ("agd_memory_save", {"kind": "k" * 5_000, "id": "d", "content": "x"},
         "kind has 5,000 characters; the limit is 1,000"),
        ("agd_memory_save", {"kind": "x-project", "id": "d", "content": "x", "keys": ["a" * 2_000]},
         "keys has 2,000 characters"),
        ("agd_memory_save", {"kind": "x-project", "id": "d", "content": "x", "refs": ["r"] * 201},
         "refs has 201 items; the limit is 200"),
        ("agd_memory_search", {"query": "deploy " * 1_000}, "query has 7,000 characters"),
        ("agd_memory_get", {"id": "i" * 1_001}, "id has 1,001 characters"),
        ("agd_memory_toc", {"kind": "x-" + "k" * 2_000}, "kind has 2,002 characters"),
    ],
)  # fmt: skip
def test_each_argument_is_bounded(tool, memory, name, args, says):
    before = memory.project_file.read_bytes()
    r = tool(name, args)
    assert said(r).startswith("request refused: ") and says in r.text, r.text
    assert memory.project_file.read_bytes() == before


def test_the_whole_request_is_bounded(tool):
    ids = [f"{i:03d}" + "x" * 900 for i in range(200)]  # each id and the count are allowed
    # 200 ids of 903 characters, and scope="all"
    r = tool("agd_memory_get", {"ids": ids})
    assert said(r).startswith("request refused: its arguments hold 180,603 characters together")


def test_a_full_block_still_fits(tool):
    r = tool(
        "agd_memory_save",
        {
            "kind": "x-project",
            "id": "long-notes",
            "content": "A fact worth keeping.\n" * 4_500,  # 99,000 characters
            "desc": "d" * 1_000,
            "keys": [f"key{i}" for i in range(24)],
        },
    )
    assert not r.is_error, r.text
    r = tool("agd_memory_get", {"id": "long-notes"})
    assert not r.is_error and r.text.count("A fact worth keeping.") == 4_500


def _save_raising(monkeypatch, memory, exc: Exception):
    def fail(*args, **kwargs):
        raise exc

    monkeypatch.setattr(mcp_tools, "save", fail)
    return call_tools(memory.server(), [("agd_memory_save", {"kind": "x-a", "id": "a", "content": "b"})])[0]


@pytest.mark.parametrize(
    "exc, text",
    [
        # the type decides, not the wording: a refusal is passed on as it is...
        (SaveRejected("the id is taken"), "the id is taken"),
        (SecretRejected("holds a token", "a GitHub token", field="content"), "holds a token"),
        # ...and any other failure of a save says the save failed, even when its text
        # happens to begin with "save "
        (MemoryFileError("save rejected? no: the disk is full", path="/m.agd"),
         "save failed: save rejected? no: the disk is full"),
        (BlockNotFound("no block #a", block_id="a"), "save failed: no block #a"),
    ],
)  # fmt: skip
def test_save_errors_are_worded_by_their_type(monkeypatch, memory, exc, text):
    r = _save_raising(monkeypatch, memory, exc)
    assert said(r) == text


def test_errors_carry_what_they_are_about(tool, memory):
    memory.project_file.write_text("@x-a [#a]\n\n@bad tag!\n", encoding="utf-8")
    from agd_memory import store

    mf = store.MemoryFile(memory.project_file, layer="project", settings=memory.settings)
    with pytest.raises(MemoryFileError) as info:
        mf.entries()
    assert (info.value.path, info.value.line, info.value.reason) == (
        str(memory.project_file),
        3,
        "parse",
    )
    memory.seed()
    with pytest.raises(BlockNotFound) as missing:
        store.MemoryFile(memory.project_file, layer="project", settings=memory.settings).delete(
            "ghost"
        )
    assert (missing.value.block_id, missing.value.path) == ("ghost", str(memory.project_file))
    with pytest.raises(SecretRejected) as secret:
        store.MemoryFile(memory.project_file, layer="project", settings=memory.settings).save(
            "x-project", "t", "token ghp_" + "a1B2c3D4e5" * 4
        )
    assert secret.value.field == "content" and secret.value.reason == "secret"
