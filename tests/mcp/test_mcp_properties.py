"""Properties of what the model reads: any body comes back exactly, ids are normalised once."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from mcp_fixtures import Memory, call_tools

from agd_memory.mcp import text as mcp_text
from agd_memory.mcp.tools import requested_ids

pytestmark = pytest.mark.property

BODY_LINES = st.lists(
    st.one_of(
        st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=40),
        st.sampled_from(["~~~", "~~~~", "  ~~~", "~~~ x", "@x-project [#a]", "#deploy", ""]),
    ),
    min_size=1,
    max_size=6,
)


@given(lines=BODY_LINES)
def test_the_fence_never_appears_as_a_body_line(lines):
    body = "\n".join(lines)
    fence = mcp_text._fence_for(body)
    assert fence.startswith("~~~") and set(fence) == {"~"}
    assert fence not in [line.strip() for line in body.split("\n")]


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(lines=BODY_LINES)
def test_any_saved_body_is_read_back_verbatim_between_fences(tmp_path_factory, lines):
    body = "\n".join(lines).strip("\n")
    assume(body.strip())
    memory = Memory(tmp_path_factory.mktemp("prop"))
    saved, got = call_tools(
        memory.server(),
        [
            ("agd_memory_save", {"kind": "x-project", "id": "prop", "content": body}),
            ("agd_memory_get", {"id": "prop"}),
        ],
    )
    if saved.is_error:  # only the secret check may refuse an arbitrary body
        assert "looks like" in saved.text
        return
    fence = mcp_text._fence_for(body)
    match = re.search(f"\n{fence}\n(.*)\n{fence}(?:\n|$)", got.text, flags=re.S)
    assert match, got.text
    assert match.group(1) == body.rstrip("\n")


@given(ids=st.lists(st.from_regex(r"#?[A-Za-z_][A-Za-z0-9_-]{0,12}", fullmatch=True), max_size=8))
def test_requested_ids_are_bare_unique_and_in_order(ids):
    out = requested_ids(None, ids)
    bare = [i.lstrip("#") for i in ids]
    assert out == list(dict.fromkeys(bare))
    assert requested_ids(",".join(ids), None) == out
