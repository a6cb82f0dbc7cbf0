"""Properties of migrate and merge over generated memories: nothing lost, bodies intact, idempotent."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agd
import agd.graph
from agd_memory.maintenance import merge, migrate
from agd_memory.maintenance.source import SourceFile

KINDS = ("x-user", "x-project", "x-reference")
IDS = [f"e{n}" for n in range(8)]

_words = st.sampled_from(
    ["FATTO:", "TODO", "wip", "Open", "see", "#e1", "#e3", "#ghost", "2026-02-03", "2025-13-01",
     "@x-project desc=\"fake\" [#e7]", "~~~", "body", "text", "~~~~"]
)  # fmt: skip
_line = st.lists(_words, min_size=1, max_size=5).map(" ".join)
_body = st.lists(
    st.one_of(_line, st.sampled_from(["~~~", "@h2 Not a heading [#e6]"])), max_size=4
).map("\n".join)


_IDS = st.lists(st.sampled_from(IDS), unique=True, max_size=6)


@st.composite
def memories(draw):
    chosen = draw(_IDS)
    parts = ["@meta format=agd version=1 [#meta]", "@h2 Project [#h-project]"]
    for bid in chosen:
        kind = draw(st.sampled_from(KINDS))
        desc = draw(_line).replace('"', "'")
        body = draw(_body)
        fence = "~" * max([3] + [len(x) + 1 for x in body.split("\n") if x and set(x) == {"~"}])
        parts.append(f'@{kind} desc="{desc}" [#{bid}]\n{fence}\n{body}\n{fence}')
    return "\n\n".join(parts) + "\n"


def bodies(text: str) -> dict:
    return {b.id: (b.kind, b.value) for b in agd.parse(text).blocks}


@pytest.mark.property
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=memories())
def test_migrations_keep_bodies_and_are_idempotent(text):
    path = Path("m.agd")
    for planner in (
        lambda s: migrate.plan_refs(s.document),
        lambda s: migrate.plan_lifecycle(s.document),
    ):
        source = SourceFile.parse(path, text)
        changes = planner(source)
        new = migrate.apply_changes(source, changes) if changes else text
        assert bodies(new) == bodies(text)
        assert planner(SourceFile.parse(path, new)) == []
        text = new


@pytest.mark.property
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(src=memories(), dst=memories(), prefer=st.sampled_from(["source", "dest", "newer", None]))
def test_merge_loses_nothing_and_a_second_merge_is_a_no_op(src, dst, prefer):
    source = SourceFile.parse(Path("s.agd"), src)
    dest = SourceFile.parse(Path("d.agd"), dst)
    plan = merge.plan_merge(source, dest, prefer=prefer)
    merged = plan.text if plan.text is not None else dst
    after = agd.parse(merged)
    ids = {b.id for b in after.blocks}
    assert {b.id for b in dest.document.blocks if b.id} <= ids
    assert {b.id for b in source.document.blocks if b.id and b.kind.startswith("x-")} <= ids
    known = ids
    for block in after.blocks:
        for key in ("refs", "supersedes"):
            assert all(i in known for i in agd.refs.parse_ids(block.attrs.get(key)))
    again = merge.plan_merge(source, SourceFile.parse(Path("d.agd"), merged), prefer=prefer)
    assert again.text is None or prefer is None
    assert again.copied == []
