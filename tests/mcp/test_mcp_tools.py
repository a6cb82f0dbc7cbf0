"""Every tool, every parameter, every error, through an in-memory MCP client session.

GIVEN a project layer and a global layer on disk (conftest), WHEN the model calls
a tool, THEN the text it reads says what it needs: ids, layers, the next call.
"""

from __future__ import annotations

import re

import pytest
from mcp_fixtures import PROJECT_IDS, TODAY, call_tools

# ------------------------------------------------------------------ agd_memory_toc


def toc_ids(text: str) -> list[str]:
    return re.findall(r"^#([\w-]+) \(", text, flags=re.M)


def test_toc_lists_both_layers_project_first_and_names_each_layer(tool):
    r = tool("agd_memory_toc")
    assert not r.is_error
    assert toc_ids(r.text) == [*PROJECT_IDS, "answer-style"]
    assert "#deploy (x-project, project, open, 2026-06-20): How we deploy to staging" in r.text
    assert "#answer-style (x-user, global, 2026-01-05): Prefers short answers in English" in r.text
    assert "6 entries (project 5, global 1)" in r.text


def test_toc_leaves_out_headings_and_meta(tool):
    ids = toc_ids(tool("agd_memory_toc").text)
    assert not {"meta", "root", "h-project", "h-user"} & set(ids)


def test_toc_kind_filter_accepts_full_and_short_kind(tool):
    assert toc_ids(tool("agd_memory_toc", {"kind": "x-project"}).text) == [
        "deploy",
        "db-choice",
        "pg-tuning",
    ]
    assert toc_ids(tool("agd_memory_toc", {"kind": "project"}).text) == [
        "deploy",
        "db-choice",
        "pg-tuning",
    ]


def test_toc_status_filter(tool):
    assert toc_ids(tool("agd_memory_toc", {"status": "open"}).text) == ["deploy"]
    assert toc_ids(tool("agd_memory_toc", {"status": "done"}).text) == ["pg-tuning"]


def test_toc_since_keeps_blocks_updated_on_or_after_the_date(tool):
    assert toc_ids(tool("agd_memory_toc", {"since": "2026-05-02"}).text) == ["lint-first", "deploy"]
    assert toc_ids(tool("agd_memory_toc", {"since": "2027-01-01"}).text) == []
    assert "no entries match" in tool("agd_memory_toc", {"since": "2027-01-01"}).text


def test_toc_scope_selects_a_layer(tool):
    assert toc_ids(tool("agd_memory_toc", {"scope": "global"}).text) == ["answer-style"]
    assert toc_ids(tool("agd_memory_toc", {"scope": "project"}).text) == PROJECT_IDS


def test_toc_pages_and_names_the_call_for_the_next_page(tool):
    first = tool("agd_memory_toc", {"limit": 2})
    assert toc_ids(first.text) == ["lint-first", "deploy"]
    assert "showing 1-2" in first.text
    assert "4 more: agd_memory_toc(offset=2, limit=2)" in first.text
    second = tool("agd_memory_toc", {"limit": 2, "offset": 2})
    assert toc_ids(second.text) == ["db-choice", "pg-tuning"]
    last = tool("agd_memory_toc", {"limit": 2, "offset": 4})
    assert toc_ids(last.text) == ["runbook", "answer-style"]
    assert "more:" not in last.text


def test_toc_next_page_call_repeats_the_filters(tool):
    r = tool("agd_memory_toc", {"kind": "x-project", "scope": "project", "limit": 1})
    assert 'agd_memory_toc(offset=1, kind="x-project", scope="project", limit=1)' in r.text


def test_toc_offset_past_the_end_says_so(tool):
    r = tool("agd_memory_toc", {"offset": 99})
    assert not r.is_error
    assert "offset 99 is past the end" in r.text


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ({"since": "last week"}, "YYYY-MM-DD"),
        ({"since": "2026-02-30"}, "YYYY-MM-DD"),
        ({"status": "pending"}, "status"),
        ({"scope": "everything"}, "scope"),
        ({"limit": 0}, "limit"),
        ({"offset": -1}, "offset"),
    ],
)
def test_toc_bad_arguments_are_tool_errors(tool, args, says):
    r = tool("agd_memory_toc", args)
    assert r.is_error
    assert says in r.text


def test_reads_without_a_memory_file_say_how_to_create_one(empty_tool, empty_memory):
    for name, args in [
        ("agd_memory_toc", {}),
        ("agd_memory_search", {"query": "deploy"}),
        ("agd_memory_get", {"id": "deploy"}),
    ]:
        r = empty_tool(name, args)
        assert r.is_error, name
        assert "no memory file yet" in r.text
        assert str(empty_memory.project_file) in r.text
        assert "agd_memory_save(" in r.text


def test_reads_use_the_layer_that_exists(memory):
    memory.global_file.unlink()
    [r] = call_tools(memory.server(), [("agd_memory_toc", {})])
    assert toc_ids(r.text) == PROJECT_IDS


# ------------------------------------------------------------------ agd_memory_search


def test_search_ranks_blocks_and_names_their_layers(tool):
    r = tool("agd_memory_search", {"query": "postgres tuning"})
    assert not r.is_error
    ids = re.findall(r"^#([\w-]+) \(", r.text, flags=re.M)
    assert ids and ids[0] == "pg-tuning"
    assert "#pg-tuning (x-project, project, done, 2026-03-11) score" in r.text
    assert 'agd_memory_get(ids=["pg-tuning"' in r.text


def test_search_finds_global_blocks_with_their_layer(tool):
    r = tool("agd_memory_search", {"query": "short answers english"})
    assert "#answer-style (x-user, global" in r.text


def test_search_kind_scope_and_limit(tool):
    r = tool("agd_memory_search", {"query": "deploy", "kind": "x-reference"})
    assert re.findall(r"^#([\w-]+) \(", r.text, flags=re.M) == ["runbook"]
    r = tool("agd_memory_search", {"query": "short answers english", "scope": "project"})
    assert "answer-style" not in r.text
    r = tool("agd_memory_search", {"query": "deploy", "limit": 1})
    assert len(re.findall(r"^#([\w-]+) \(", r.text, flags=re.M)) == 1


def test_search_forwards_ignore_case(tool, monkeypatch):
    import agd_memory.recall.search as ranked

    seen = {}
    real = ranked.search

    def spy(query, files, settings, **kw):
        seen.update(kw)
        return real(query, files, settings, **kw)

    monkeypatch.setattr(ranked, "search", spy)
    tool("agd_memory_search", {"query": "deploy"})
    assert seen["ignore_case"] is True
    tool("agd_memory_search", {"query": "deploy", "ignore_case": False})
    assert seen["ignore_case"] is False


def test_search_without_hits_is_not_an_error(tool):
    r = tool("agd_memory_search", {"query": "kubernetes helm chart"})
    assert not r.is_error
    assert "no block matches" in r.text


@pytest.mark.parametrize(
    ("args", "says"), [({"query": "  "}, "query is empty"), ({"query": "x", "limit": 0}, "limit")]
)
def test_search_bad_arguments_are_tool_errors(tool, args, says):
    r = tool("agd_memory_search", args)
    assert r.is_error
    assert says in r.text


def test_search_query_is_required(tool):
    r = tool("agd_memory_search", {})
    assert r.is_error
    assert "query" in r.text


# ------------------------------------------------------------------ agd_memory_get


def block_heads(text: str) -> list[str]:
    return re.findall(r"^#([\w-]+) \(.*\[\w+ layer\]", text, flags=re.M)


def test_get_one_block_with_body_and_layer(tool):
    r = tool("agd_memory_get", {"id": "#deploy"})
    assert not r.is_error
    assert block_heads(r.text) == ["deploy"]
    assert "[project layer]" in r.text
    assert "Deploy with `make deploy STAGE=staging`" in r.text
    assert "refs #db-choice" in r.text
    assert "created 2026-06-01" in r.text


def test_get_batches_ids_across_layers(tool):
    r = tool("agd_memory_get", {"ids": ["deploy", "answer-style"]})
    assert re.findall(r"^#([\w-]+) \(.*\[(\w+) layer\]", r.text, flags=re.M) == [
        ("deploy", "project"),
        ("answer-style", "global"),
    ]


def test_get_names_missing_ids_with_close_matches_and_returns_the_rest(tool):
    r = tool("agd_memory_get", {"ids": ["deploy", "db-choise", "nothing-like-it"]})
    assert not r.is_error
    assert block_heads(r.text) == ["deploy"]
    assert (
        "Not found in scope all: #db-choise (did you mean #db-choice?), #nothing-like-it" in r.text
    )


def test_get_with_only_missing_ids_is_an_error_with_suggestions(tool):
    r = tool("agd_memory_get", {"id": "deploi"})
    assert r.is_error
    assert "#deploi (did you mean #deploy?)" in r.text
    assert "agd_memory_toc" in r.text


def test_get_without_ids_is_an_error(tool):
    r = tool("agd_memory_get", {})
    assert r.is_error
    assert 'ids=["' in r.text


def test_get_id_and_ids_are_combined(tool):
    r = tool("agd_memory_get", {"id": "runbook", "ids": ["deploy", "runbook"]})
    assert block_heads(r.text) == ["runbook", "deploy"]


def test_get_follow_refs_depth(tool):
    one = tool("agd_memory_get", {"id": "deploy", "follow_refs": True})
    assert block_heads(one.text) == ["deploy", "db-choice"]
    assert "(ref of #deploy)" in one.text
    two = tool("agd_memory_get", {"id": "deploy", "follow_refs": True, "depth": 2})
    assert block_heads(two.text) == ["deploy", "db-choice", "pg-tuning"]
    assert "(ref of #db-choice)" in two.text


def test_get_with_backlinks_returns_blocks_citing_the_id(tool):
    r = tool("agd_memory_get", {"id": "deploy", "with_backlinks": True})
    heads = block_heads(r.text)
    assert heads[0] == "deploy"
    assert set(heads[1:]) == {"lint-first", "runbook"}
    assert "(cites #deploy)" in r.text


def test_get_limit_caps_linked_blocks_and_says_more_exist(tool):
    r = tool("agd_memory_get", {"id": "deploy", "with_backlinks": True, "limit": 1})
    assert len(block_heads(r.text)) == 2
    assert "More linked blocks exist beyond limit=1" in r.text
    r = tool("agd_memory_get", {"id": "deploy", "with_backlinks": True, "limit": 2})
    assert "More linked blocks" not in r.text


def test_get_scope_project_does_not_see_global_blocks(tool):
    r = tool("agd_memory_get", {"ids": ["deploy", "answer-style"], "scope": "project"})
    assert block_heads(r.text) == ["deploy"]
    assert "Not found in scope project: #answer-style" in r.text


@pytest.mark.parametrize(
    ("args", "says"),
    [({"id": "deploy", "depth": 0}, "depth"), ({"id": "deploy", "limit": 0}, "limit")],
)
def test_get_bad_arguments_are_tool_errors(tool, args, says):
    r = tool("agd_memory_get", args)
    assert r.is_error
    assert says in r.text


# ------------------------------------------------------------------ agd_memory_save


def test_save_adds_a_block_to_the_project_layer(tool, memory):
    r = tool(
        "agd_memory_save",
        {
            "kind": "x-project",
            "id": "ci-cache",
            "content": "CI caches pip wheels.",
            "desc": "CI cache",
        },
    )
    assert not r.is_error, r.text
    assert "added #ci-cache" in r.text
    assert f"[project layer: {memory.project_file}]" in r.text
    text = memory.project_file.read_text(encoding="utf-8")
    assert "[#ci-cache]" in text and "CI caches pip wheels." in text
    got = tool("agd_memory_get", {"id": "ci-cache"})
    assert "#ci-cache (x-project, 2026-06-25) [project layer] CI cache" in got.text


def test_save_writes_keys_that_recall_matches_but_get_shows(tool, memory):
    r = tool(
        "agd_memory_save",
        {"kind": "x-project", "id": "ci-cache", "content": "CI caches pip wheels.",
         "desc": "CI cache", "keys": ["Slow builds", "pip download", "build lenta"]},
    )  # fmt: skip
    assert not r.is_error, r.text
    assert 'keys="slow builds, pip download, build lenta"' in memory.project_file.read_text(
        encoding="utf-8"
    )
    hits = tool("agd_memory_search", {"query": "slow builds"}).text
    assert "#ci-cache" in hits


def test_save_updates_an_existing_block_and_keeps_its_desc(tool, memory):
    r = tool(
        "agd_memory_save",
        {"kind": "x-project", "id": "deploy", "content": "Deploy with make ship."},
    )
    assert not r.is_error, r.text
    assert "updated #deploy" in r.text
    got = tool("agd_memory_get", {"id": "deploy"}).text
    assert "How we deploy to staging" in got
    assert "make ship" in got and "STAGE=staging" not in got
    assert f"{TODAY}" in got


def test_save_to_global_scope_writes_the_global_file(tool, memory):
    before = memory.project_file.read_text(encoding="utf-8")
    r = tool(
        "agd_memory_save",
        {
            "kind": "x-user",
            "id": "editor",
            "content": "Uses vim.",
            "desc": "Editor",
            "scope": "global",
        },
    )
    assert not r.is_error, r.text
    assert "[global layer:" in r.text
    assert "[#editor]" in memory.global_file.read_text(encoding="utf-8")
    assert memory.project_file.read_text(encoding="utf-8") == before


def test_save_refs_status_and_supersedes(tool):
    r = tool(
        "agd_memory_save",
        {
            "kind": "x-project",
            "id": "db-choice-2026",
            "content": "We moved the orders service to Postgres 17.",
            "desc": "Database choice: Postgres 17",
            "refs": ["#pg-tuning"],
            "status": "open",
            "supersedes": ["db-choice"],
        },
    )
    assert not r.is_error, r.text
    assert "superseded #db-choice" in r.text
    got = tool("agd_memory_get", {"ids": ["db-choice-2026", "db-choice"]}).text
    assert "#db-choice-2026 (x-project, open, 2026-06-25)" in got
    assert "refs #pg-tuning" in got
    assert "supersedes #db-choice" in got
    assert "#db-choice (x-project, superseded" in got


def test_save_reports_ignored_unknown_ids_and_rejects_invalid_ones(tool):
    r = tool(
        "agd_memory_save",
        {"kind": "x-project", "id": "n1", "content": "x", "supersedes": ["ghost"]},
    )
    assert not r.is_error and "ignored unknown ids #ghost" in r.text
    r = tool(
        "agd_memory_save", {"kind": "x-project", "id": "n2", "content": "x", "refs": ["not valid!"]}
    )
    assert r.is_error and "save rejected" in r.text and "Nothing was written" in r.text


def test_save_status_done_then_toc_filter_sees_it(tool):
    tool(
        "agd_memory_save",
        {"kind": "x-project", "id": "deploy", "content": "Deployed.", "status": "done"},
    )
    assert "deploy" in toc_ids(tool("agd_memory_toc", {"status": "done"}).text)


def test_save_creates_the_memory_file_on_first_use(empty_tool, empty_memory):
    assert not empty_memory.project_file.exists()
    r = empty_tool("agd_memory_save", {"kind": "x-project", "id": "first", "content": "Hello."})
    assert not r.is_error, r.text
    assert empty_memory.project_file.exists()
    assert toc_ids(empty_tool("agd_memory_toc").text) == ["first"]


def test_save_invalid_id_is_rejected_with_a_suggestion_and_writes_nothing(tool, memory):
    before = memory.project_file.read_text(encoding="utf-8")
    r = tool("agd_memory_save", {"kind": "x-project", "id": "ctx-kernel-1.9.0", "content": "x"})
    assert r.is_error
    assert "save rejected" in r.text
    assert "ctx-kernel-1-9-0" in r.text
    assert memory.project_file.read_text(encoding="utf-8") == before


def test_save_invalid_kind_is_rejected(tool, memory):
    before = memory.project_file.read_text(encoding="utf-8")
    r = tool("agd_memory_save", {"kind": "notes", "id": "ok-id", "content": "x"})
    assert r.is_error
    assert r.text.count("save rejected") == 1
    assert "invalid kind `notes`" in r.text
    assert memory.project_file.read_text(encoding="utf-8") == before


def test_save_refuses_a_secret_and_writes_nothing(tool, memory):
    before = memory.project_file.read_text(encoding="utf-8")
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    r = tool(
        "agd_memory_save", {"kind": "x-reference", "id": "gh-token", "content": f"token: {token}"}
    )
    assert r.is_error
    assert "looks like a GitHub" in r.text and "content line 1" in r.text
    assert "never its value" in r.text
    assert "allow_secrets" not in r.text  # the model cannot override; only a person, via the CLI
    assert token not in r.text
    assert memory.project_file.read_text(encoding="utf-8") == before


def test_save_refuses_a_secret_in_desc(tool, memory):
    before = memory.project_file.read_text(encoding="utf-8")
    r = tool(
        "agd_memory_save",
        {
            "kind": "x-reference",
            "id": "aws",
            "content": "AWS account notes.",
            "desc": "key AKIAIOSFODNN7EXAMPLE",
        },
    )
    assert r.is_error and "in desc" in r.text
    assert memory.project_file.read_text(encoding="utf-8") == before


def test_save_body_with_a_fence_line_round_trips(tool):
    body = "Before\n~~~\nAfter"
    r = tool("agd_memory_save", {"kind": "x-reference", "id": "fenced", "content": body})
    assert not r.is_error, r.text  # the body is stored verbatim; a longer fence encloses it
    got = tool("agd_memory_get", {"id": "fenced"}).text
    assert "\n~~~~\nBefore\n~~~\nAfter\n~~~~" in got


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ({"id": "x", "content": "y"}, "kind"),
        ({"kind": "x-project", "content": "y"}, "id"),
        ({"kind": "x-project", "id": "x"}, "content"),
        ({"kind": "x-project", "id": "x", "content": "y", "scope": "all"}, "scope"),
        ({"kind": "x-project", "id": "x", "content": "y", "status": "blocked"}, "status"),
    ],
)
def test_save_bad_arguments_are_tool_errors(tool, args, says):
    r = tool("agd_memory_save", args)
    assert r.is_error
    assert says in r.text


def test_unexpected_failures_are_one_line_tool_errors_logged_with_traceback(
    tool, memory, monkeypatch
):
    import agd_memory.mcp.tools as tools

    def boom(*a, **k):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(tools, "toc", boom)
    logged = []
    monkeypatch.setattr("agd_memory.mcp.app.debuglog.log", logged.append)
    r = tool("agd_memory_toc")
    assert r.is_error
    assert "internal error (RuntimeError: disk on fire)" in r.text
    assert "Traceback" not in r.text
    assert logged and "Traceback" in logged[0]


def test_a_memory_file_that_does_not_parse_is_named_with_the_fix(memory):
    # The readers answer from the other layers and name the file left out first; the
    # save (which would write to it) is refused; nothing reads as an empty memory.
    memory.seed(project="@x-project [#a]\n~~~\nunterminated\n")
    results = call_tools(
        memory.server(),
        [
            ("agd_memory_toc", {}),
            ("agd_memory_get", {"id": "answer-style"}),
            ("agd_memory_search", {"query": "short answers"}),
            ("agd_memory_save", {"kind": "x-project", "id": "b", "content": "x"}),
        ],
    )
    for r in results:
        assert f"memory file {memory.project_file} does not parse" in r.text
        assert "agd validate" in r.text and "restore" not in r.text  # ordinary saves keep no .bak
    *reads, save = results
    for r in reads:
        assert not r.is_error
        assert r.text.startswith("Note: the project layer is left out")
        assert "answer-style" in r.text  # the global layer still answers
    assert save.is_error
    assert memory.project_file.read_text(encoding="utf-8") == "@x-project [#a]\n~~~\nunterminated\n"


def test_save_empty_status_and_empty_refs_clear_them(tool):
    r = tool(
        "agd_memory_save",
        {"kind": "x-project", "id": "deploy", "content": "Deploy.", "status": "", "refs": []},
    )
    assert not r.is_error, r.text
    got = tool("agd_memory_get", {"id": "deploy"}).text
    assert "#deploy (x-project, 2026-06-25)" in got  # no status any more
    assert "refs #" not in got
    assert "deploy" not in toc_ids(tool("agd_memory_toc", {"status": "open"}).text)
