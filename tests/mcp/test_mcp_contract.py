"""The tool contract: names, parameter names, required ones, hints, docs, instructions.

Renaming a tool or a parameter breaks every client and every skill that calls
it; this test fails first.
"""

from __future__ import annotations

import anyio
import pytest

import mcp
from agd_memory.mcp.app import INSTRUCTIONS, SERVER_NAME

CONTRACT = {
    "agd_memory_toc": (["kind", "status", "since", "scope", "limit", "offset"], []),
    "agd_memory_search": (["query", "ignore_case", "kind", "scope", "limit"], ["query"]),
    "agd_memory_get": (
        ["id", "ids", "with_backlinks", "follow_refs", "depth", "limit", "scope", "context"],
        [],
    ),
    "agd_memory_save": (
        ["kind", "id", "content", "desc", "refs", "status", "supersedes", "keys", "scope"],
        ["kind", "id", "content"],
    ),
}
READ_ONLY = {"agd_memory_toc", "agd_memory_search", "agd_memory_get"}


@pytest.fixture(scope="module")
def listing(tmp_path_factory):
    from mcp_fixtures import Memory

    server = Memory(tmp_path_factory.mktemp("contract")).server()

    async def go():
        async with mcp.Client(server) as client:
            tools = await client.list_tools()
            return client.server_info, client.instructions, tools.tools

    return anyio.run(go)


def schema_of(listing, name):
    return next(t for t in listing[2] if t.name == name)


def test_server_name_and_instructions_reach_the_client(listing):
    info, instructions, _ = listing
    assert info.name == SERVER_NAME == "agd-memory"
    assert instructions == INSTRUCTIONS


def test_tool_names(listing):
    assert sorted(t.name for t in listing[2]) == sorted(CONTRACT)


@pytest.mark.parametrize("name", sorted(CONTRACT))
def test_parameter_names_and_required(listing, name):
    tool = schema_of(listing, name)
    params, required = CONTRACT[name]
    assert list(tool.input_schema["properties"]) == params
    assert sorted(tool.input_schema.get("required", [])) == sorted(required)


@pytest.mark.parametrize("name", sorted(CONTRACT))
def test_every_parameter_is_documented(listing, name):
    for param, spec in schema_of(listing, name).input_schema["properties"].items():
        assert len(spec.get("description", "")) > 10, f"{name}.{param} has no description"


@pytest.mark.parametrize("name", sorted(CONTRACT))
def test_titles_hints_and_short_descriptions(listing, name):
    tool = schema_of(listing, name)
    assert tool.title and tool.annotations.title == tool.title
    assert tool.annotations.read_only_hint is (name in READ_ONLY)
    assert tool.annotations.open_world_hint is False
    assert tool.annotations.destructive_hint is False
    # Claude Code cuts tool descriptions at 2 KB.
    assert 50 < len(tool.description.encode()) < 2048


def test_reads_default_to_all_layers_and_save_to_the_project(listing):
    for name in READ_ONLY:
        assert schema_of(listing, name).input_schema["properties"]["scope"]["default"] == "all"
    save = schema_of(listing, "agd_memory_save").input_schema["properties"]["scope"]
    assert save["default"] == "project"
    assert save["enum"] == ["project", "team", "global"]


def test_results_are_text_only(listing):
    # Only text reaches the model; an output schema would double every result as JSON.
    assert all(t.output_schema is None for t in listing[2])


def test_instructions_fit_and_teach_the_access_pattern():
    assert len(INSTRUCTIONS.encode()) < 2048  # Claude Code truncates at 2 KB
    for needle in (
        "agd_memory_toc",
        "ONE agd_memory_get(ids=[...])",
        "follow_refs",
        "with_backlinks",
        'supersedes=["old-id"]',
        'scope="global" only',
    ):
        assert needle in INSTRUCTIONS
