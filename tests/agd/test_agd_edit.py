"""The edit op algebra: effects, validation messages, untouched input, JSON form (§3.8)."""

from __future__ import annotations

import json

import pytest

import agd
from agd import edit
from agd.errors import InvalidAst
from agd.model import Block, Inline

DOC = "@h1 Title [#root]\n\n@p first [#a]\n\n@x-note done=false [#n]\n~~~\nbody\n~~~\n"


def ids(doc):
    return [b.id for b in doc.blocks]


def p(text, block_id=None):
    return Block("p", "inline", [Inline("text", text)], {}, block_id)


def test_replace_keeps_target_id_when_block_has_none():
    doc = agd.parse(DOC)
    out = edit.apply(doc, edit.Replace("a", p("second")))
    assert out.blocks[1].id == "a"
    assert agd.serialize(out).splitlines()[2] == "@p second [#a]"
    assert doc == agd.parse(DOC)  # the input is untouched


def test_insert_after_before_delete_order():
    doc = agd.parse(DOC)
    doc = edit.apply(doc, edit.InsertAfter("a", p("x", "b")))
    doc = edit.apply(doc, edit.InsertBefore("root", p("y", "c")))
    assert ids(doc) == ["c", "root", "a", "b", "n"]
    assert ids(edit.apply(doc, edit.Delete("a"))) == ["c", "root", "b", "n"]


def test_set_and_remove_attr():
    doc = edit.apply(agd.parse(DOC), edit.SetAttr("n", "done", True))
    assert doc.blocks[2].attrs == {"done": True}
    doc = edit.apply(doc, edit.RemoveAttr("n", "done"))
    assert doc.blocks[2].attrs == {}
    assert edit.apply(doc, edit.RemoveAttr("n", "absent")) == doc


def test_missing_target():
    with pytest.raises(agd.IdNotFound, match="block id `zz` not found"):
        edit.apply(agd.parse(DOC), edit.Delete("zz"))


def test_duplicate_id_on_insert():
    with pytest.raises(agd.DuplicateId):
        edit.apply(agd.parse(DOC), edit.InsertAfter("a", p("x", "root")))


@pytest.mark.parametrize(
    ("block", "message"),
    [
        (
            Block("unknown", "empty"),
            "block tag `unknown`: must be a builtin or `x-` plus an identifier",
        ),
        (Block("x-", "empty"), "block tag `x-`: must be a builtin or `x-` plus an identifier"),
        (Block("x-n", "empty", None, {}, "1bad"), "id `1bad`: must match [a-zA-Z_][a-zA-Z0-9_-]*"),
        (
            Block("x-n", "empty", None, {"-k": 1}),
            "attribute key `-k`: must match [a-zA-Z_][a-zA-Z0-9_-]*",
        ),
        (
            Block("x-n", "empty", None, {"k": "a\nb"}),
            "attribute `k` value contains a newline, which the line-oriented attribute syntax cannot represent",
        ),
        (p("a\nb"), "inline content contains a newline"),
        (
            Block("p", "inline", [Inline("bold", "a*b")]),
            "inline content: a styled run cannot contain its own delimiter (`*`, `_` or backtick) — v0.1 has no escapes",
        ),
        (
            Block("p", "inline", [Inline("ref", "x")]),
            "inline content: inline references are not part of the v0.1 inline grammar — use a block-level `@ref #id`",
        ),
        (Block("ul", "items", [[Inline("text", "a\n")]]), "list item contains a newline"),
        (Block("code", "empty"), "a `code` block holds fenced content, not empty"),
        (p("a*b*c"), "the block would read back differently once written"),
    ],
)
def test_invalid_blocks_are_refused_and_document_untouched(block, message):
    doc = agd.parse(DOC)
    with pytest.raises(agd.InvalidEdit) as info:
        edit.apply(doc, edit.InsertAfter("a", block))
    assert str(info.value).startswith("invalid edit: " + message)
    assert doc == agd.parse(DOC)


def test_attributes_on_text_blocks_are_refused_not_written_lossily():
    with pytest.raises(agd.InvalidEdit, match="cannot carry attributes"):
        edit.apply(agd.parse(DOC), edit.SetAttr("a", "weight", 3))


def test_set_attr_validates_key_before_lookup():
    with pytest.raises(agd.InvalidEdit, match="attribute key `1x`"):
        edit.apply(agd.parse(DOC), edit.SetAttr("missing", "1x", 1))


def test_ref_blocks_can_be_created():
    block = Block("ref", "inline", [Inline("ref", "root")], {}, "r")
    out = edit.apply(agd.parse(DOC), edit.InsertAfter("a", block))
    assert "@ref #root [#r]" in agd.serialize(out)


def test_fenced_body_may_hold_anything():
    body = "line\n~~~\n~~~~ x\n"
    out = edit.apply(agd.parse(DOC), edit.Replace("n", Block("x-note", "fenced", body)))
    text = agd.serialize(out)
    assert agd.parse(text).blocks[2].value == body
    assert "~~~~\nline" in text


def test_foreign_delimiter_inside_a_run_round_trips():
    block = Block("p", "inline", [Inline("bold", "a_b")], {}, "z")
    out = edit.apply(agd.parse(DOC), edit.InsertAfter("a", block))
    assert agd.parse(agd.serialize(out)) == out


def test_adjacent_text_nodes_are_merged():
    block = Block("p", "inline", [Inline("text", "a"), Inline("text", ""), Inline("text", "b")])
    out = edit.apply(agd.parse(DOC), edit.Replace("a", block))
    assert out.blocks[1].value == [Inline("text", "ab")]


def test_op_json_round_trip_and_errors():
    op = edit.parse_op(
        '{"op":"insert_after","id":"#h-feedback","block":{"kind":"x-feedback","id":"f1",'
        '"attrs":{"desc":"d"},"content":{"type":"fenced","value":"x"}}}'
    )
    assert isinstance(op, edit.InsertAfter) and op.id == "h-feedback"
    assert edit.op_from_json(json.loads(json.dumps(edit.op_to_json(op)))) == op
    assert edit.op_to_json(edit.Delete("x")) == {"op": "delete", "id": "x"}
    with pytest.raises(InvalidAst, match="unknown variant `nope`"):
        edit.parse_op('{"op":"nope","id":"x"}')
    with pytest.raises(InvalidAst, match="missing field `id`"):
        edit.parse_op('{"op":"delete"}')
    with pytest.raises(InvalidAst):
        edit.parse_op('{"op":"set_attr","id":"x","key":"k","value":1.5}')
    with pytest.raises(InvalidAst):
        edit.parse_op("{not json")


# -- `agd edit -i` shares the store's lock ------------------------------------------------

SAVER = """
import sys
sys.path.insert(0, {src!r})
from agd_memory import store
from agd_memory.settings import Settings
mf = store.MemoryFile({path!r}, settings=Settings.load({{"CLAUDE_PLUGIN_DATA": {data!r}}}))
for n in range({count}):
    mf.save("x-project", f"w{worker}-n{{n}}", f"save {{n}} of worker {worker}")
    print(f"w{worker}-n{{n}}", flush=True)
"""


@pytest.mark.slow
def test_agd_edit_in_place_loses_no_concurrent_save_and_writes_through_the_link(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    real = tmp_path / "dotfiles" / "memory.agd"
    real.parent.mkdir()
    real.write_text(
        "@meta format=agd version=1 [#meta]\n\n@h2 Project [#h-project]\n\n"
        "@x-project [#target]\n~~~\nedited by agd\n~~~\n",
        encoding="utf-8",
    )
    link = tmp_path / "memory.agd"
    link.symlink_to(real)
    savers = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                SAVER.format(
                    src=str(repo / "src"),
                    path=str(real),
                    data=str(tmp_path / "d"),
                    worker=w,
                    count=30,
                ),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for w in range(2)
    ]
    edits_done = []
    for n in range(12):  # through the link, while the savers run
        op = json.dumps({"op": "set_attr", "id": "target", "key": f"e{n}", "value": "yes"})
        r = subprocess.run(
            [sys.executable, str(repo / "bin" / "agd"), "edit", str(link), "--op", op, "-i"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 0, r.stderr
        edits_done.append(f"e{n}")
    acknowledged = []
    for proc in savers:
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0
        acknowledged += out.split()
    assert link.is_symlink(), "agd edit -i replaced the link with a copy"
    doc = agd.parse(real.read_text(encoding="utf-8"))
    present = {b.id for b in doc.blocks}
    assert [i for i in acknowledged if i not in present] == [], "acknowledged saves were lost"
    assert len(acknowledged) == 60
    target = doc.find("target")
    assert target is not None and all(target.attrs.get(k) == "yes" for k in edits_done)
