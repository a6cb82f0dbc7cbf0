"""Property: saving one block leaves every other byte of the memory file as it was.

Files are generated with varied other blocks (headings, paragraphs, lists, entries with
odd attribute spellings such as `ver=007`), one to three blank lines between blocks, a
BOM or not, LF or CRLF line ends, a final newline or not.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import agd
from agd.errors import AgdError
from agd_memory import store
from agd_memory.settings import Settings

ODD_VALUES = ["007", "0012", "7", "yes", "true", '"two  spaces"', '"x"', "a-b", '""']
WORDS = st.text(alphabet="abcdefgh é", min_size=1, max_size=12).map(str.strip).filter(bool)


@st.composite
def other_block(draw: st.DrawFn, n: int) -> str:
    shape = draw(st.sampled_from(["entry", "entry", "heading", "paragraph", "list"]))
    if shape == "heading":
        return f"@h3 {draw(WORDS)} [#s{n}]"
    if shape == "paragraph":
        return f"@p {draw(WORDS)}"
    if shape == "list":
        items = draw(st.lists(WORDS, min_size=1, max_size=3))
        return "@ul\n" + "\n".join(f"- {i}" for i in items)
    names = draw(st.lists(st.sampled_from(["ver", "n", "flag", "desc", "owner"]), unique=True))
    attrs = "".join(
        f"{draw(st.sampled_from([' ', '  ']))}{k}={draw(st.sampled_from(ODD_VALUES))}"
        for k in names
    )
    kind = draw(st.sampled_from(["x-project", "x-note", "x-user"]))
    body = "\n".join(draw(st.lists(WORDS, min_size=0, max_size=3)))
    return f"@{kind}{attrs} [#e{n}]\n~~~\n{body}\n~~~".replace("~~~\n\n~~~", "~~~\n~~~")


@st.composite
def memory_file(draw: st.DrawFn) -> tuple[str, list[tuple[int, int, str]]]:
    """(raw text, [(start, end, id) of every block with an id, in raw characters])."""
    blocks = ["@meta format=agd version=1 [#meta]", "@h2 Project [#h-project]"]
    blocks += [draw(other_block(n)) for n in range(draw(st.integers(1, 6)))]
    order = draw(st.permutations(blocks[2:]))
    blocks = blocks[:2] + list(order)
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    text = "\ufeff" if draw(st.booleans()) else ""
    spans = []
    for i, block in enumerate(blocks):
        if i:
            text += eol * draw(st.integers(1, 3))
        start = len(text)
        text += block.replace("\n", eol) + eol
        block_id = block.split("[#", 1)[1].split("]", 1)[0] if "[#" in block else ""
        spans.append((start, len(text), block_id))
    if not draw(st.booleans()):
        text = text[: -len(eol)]
    return text, spans


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


@pytest.mark.property
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data(), file=memory_file(), body=WORDS)
def test_saving_one_block_changes_no_other_byte(tmp_path: Path, data, file, body):
    raw, spans = file
    try:
        agd.parse(raw)
    except AgdError:
        assume(False)
    path = tmp_path / "memory.agd"
    path.write_bytes(raw.encode("utf-8"))
    store.clear_cache()
    mf = store.MemoryFile(path, settings=Settings.load({"CLAUDE_PLUGIN_DATA": str(tmp_path)}))
    entries = [(s, e, i) for s, e, i in spans if i.startswith("e") and mf.entry(i) is not None]
    target = data.draw(st.sampled_from([*entries, None]))
    block_id = target[2] if target else "brand-new"
    kind = mf.entry(block_id).kind if target else "x-project"
    mf.save(kind, block_id, body)
    out = path.read_bytes().decode("utf-8")
    p = _common_prefix(raw, out)
    s = _common_prefix(raw[p:][::-1], out[p:][::-1])
    if target is None:  # an insertion: the old text is all there, around the new block
        assert p + s == len(raw)
    else:  # the changed bytes lie inside the saved block's own lines
        start, end, _ = target
        assert p >= start and len(raw) - s <= end
    assert mf.entry(block_id).body == body
    assert {b.id for b in agd.parse(out).blocks} >= {i for _, _, i in spans if i}
