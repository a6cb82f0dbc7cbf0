"""Every `agd` verb in-process: outputs, exit codes, stdin, in-place guards (reference §3)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest
from agd_testdata import CONFORMANCE, ROOT

from agd.cli import main

DOC = """@meta format=agd version=1 [#meta]

@h1 Memory [#root]

@x-feedback desc="use real services" refs="#root" [#no-mocks]
~~~
Integration tests hit a real database.
~~~

@x-project desc="blog engine" refs="#no-mocks, #root" [#blog]
~~~
The Blog is written in Rust.
~~~

@ref #root [#r1]

@p plain paragraph
"""


@pytest.fixture
def doc(tmp_path):
    path = tmp_path / "memory.agd"
    path.write_text(DOC, encoding="utf-8")
    return path


def run(capsys, *args, stdin: str | None = None):
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8")), encoding="utf-8")
    try:
        code = main([str(a) for a in args])
    finally:
        sys.stdin = sys.__stdin__
    out, err = capsys.readouterr()
    return code, out, err


def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert (code, out) == (0, "agd 0.3.3\n")


def test_no_command_is_a_usage_error(capsys):
    code, _, err = run(capsys)
    assert code == 2 and "usage:" in err


def test_parse_json_has_spans_and_reference_shape(capsys, doc):
    code, out, _ = run(capsys, "parse", doc, "--json")
    data = json.loads(out)
    assert code == 0 and out.endswith("}\n")
    assert list(data["blocks"][0]) == ["kind", "attrs", "id", "content", "span"]
    assert data["blocks"][0]["span"] == {"start": 0, "end": 34}


def test_parse_readable_dump(capsys, doc):
    code, out, _ = run(capsys, "parse", doc)
    assert code == 0
    assert out.splitlines()[0] == "1:0-34 meta #meta empty format=agd version=1"
    assert '  text "Memory"' in out


def test_parse_error_message(capsys, tmp_path):
    bad = tmp_path / "bad.agd"
    bad.write_text("@h1 T\noops\n", encoding="utf-8")
    code, out, err = run(capsys, "parse", bad)
    assert (code, out) == (1, "")
    assert (
        err
        == f"agd: parsing {bad}: parse error at line 2, col 1: unexpected continuation: `oops`\n"
    )


def test_validate_ok_and_error_on_stderr(capsys, doc):
    assert run(capsys, "validate", doc) == (0, "", f"{doc}: OK\n")
    code, out, err = run(capsys, "validate", "-", stdin="@H1 x\n")
    assert (code, out) == (1, "")
    assert err == "-: invalid block tag `H1` at line 1: custom tags must be prefixed `x-`\n"


@pytest.mark.parametrize("path", sorted(CONFORMANCE.glob("*.agd")), ids=lambda p: p.stem)
def test_validate_passes_on_every_fixture(capsys, path):
    assert run(capsys, "validate", path)[0] == 0


def test_format_check_and_output(capsys, tmp_path):
    messy = tmp_path / "m.agd"
    messy.write_text('@h1 T\n\n\n@meta a="x"\n', encoding="utf-8")
    assert run(capsys, "format", messy, "--check") == (1, "", f"{messy}: not canonical\n")
    code, out, _ = run(capsys, "format", messy)
    assert (code, out) == (0, "@h1 T\n\n@meta a=x\n")
    messy.write_text(out, encoding="utf-8")
    assert run(capsys, "format", messy, "--check") == (0, "", "")
    # a missing final newline is not canonical (byte comparison)
    assert run(capsys, "format", "-", "--check", stdin="@h1 T")[0] == 1


def test_format_in_place_keeps_mode_and_check_wins(capsys, tmp_path):
    path = tmp_path / "m.agd"
    path.write_text("@h1 T\n\n\n@p x\n", encoding="utf-8")
    os.chmod(path, 0o600)
    assert run(capsys, "format", path, "-i", "--check")[0] == 1
    assert path.read_text(encoding="utf-8") == "@h1 T\n\n\n@p x\n"
    assert run(capsys, "format", path, "-i") == (0, "", "")
    assert path.read_text(encoding="utf-8") == "@h1 T\n\n@p x\n"
    assert os.stat(path).st_mode & 0o777 == 0o600


def test_in_place_refuses_stdin(capsys):
    code, _, err = run(capsys, "format", "-", "-i", stdin="@h1 T\n")
    assert (code, err) == (1, "agd: --in-place not supported with stdin\n")


def test_id_add_strip_and_usage(capsys, tmp_path):
    path = tmp_path / "d.agd"
    path.write_text("@h1 Hello\n\n@h2 World\n\n@p x\n", encoding="utf-8")
    code, out, _ = run(capsys, "id", path, "--add")
    assert out == "@h1 Hello [#hello]\n\n@h2 World [#world]\n\n@p x\n"
    assert run(capsys, "id", path)[1:] == ("", "agd: specify --add or --strip\n")
    assert run(capsys, "id", path, "--add", "--strip")[0] == 2
    assert run(capsys, "id", path, "--add", "-i")[0] == 0
    assert "[#hello]" in path.read_text(encoding="utf-8")
    assert run(capsys, "id", path, "--strip")[1] == "@h1 Hello\n\n@h2 World\n\n@p x\n"


def test_edit_stdout_and_in_place(capsys, doc):
    op = '{"op":"set_attr","id":"no-mocks","key":"status","value":"done"}'
    code, out, _ = run(capsys, "edit", doc, "--op", op)
    assert code == 0
    assert '@x-feedback desc="use real services" refs="#root" status=done [#no-mocks]' in out
    assert doc.read_text(encoding="utf-8") == DOC
    assert run(capsys, "edit", doc, "--op", op, "-i") == (0, "", "")
    assert "status=done" in doc.read_text(encoding="utf-8")


def test_edit_refusals_leave_the_file_untouched(capsys, doc):
    lossy = (
        '{"op":"replace","id":"root","with":{"kind":"h1","content":'
        '{"type":"inline","value":[{"kind":"text","text":"a*b*c"}]}}}'
    )
    code, _, err = run(capsys, "edit", doc, "--op", lossy, "-i")
    assert code == 1 and err.startswith("agd: invalid edit: the block would read back differently")
    assert doc.read_text(encoding="utf-8") == DOC
    code, _, err = run(capsys, "edit", doc, "--op", '{"op":"delete","id":"zz"}', "-i")
    assert (code, err) == (1, "agd: block id `zz` not found\n")
    code, _, err = run(capsys, "edit", doc, "--op", '{"op":"delete"}')
    assert err == 'agd: parsing operation JSON: {"op":"delete"}: missing field `id`\n'
    assert doc.read_text(encoding="utf-8") == DOC


def test_edit_creates_ref_blocks(capsys, doc):
    op = (
        '{"op":"insert_after","id":"root","block":{"kind":"ref","id":"r2","content":'
        '{"type":"inline","value":[{"kind":"ref","text":"blog"}]}}}'
    )
    assert run(capsys, "edit", doc, "--op", op, "-i")[0] == 0
    assert "@ref #blog [#r2]\n" in doc.read_text(encoding="utf-8")


def test_write_in_place_guard_messages(tmp_path):
    from agd.console import Fail, write_in_place
    from agd.model import INLINE, Block, Document, Inline

    path = tmp_path / "x.agd"
    path.write_text("@p x\n", encoding="utf-8")
    bad_id = Document([Block("p", INLINE, [Inline("text", "x")], {}, "1bad")])
    with pytest.raises(Fail, match="serialized output does not re-parse — this is a bug in agd"):
        write_in_place(str(path), lambda _: bad_id)
    two_blocks = Document([Block("p", INLINE, [Inline("text", "x\n\n@p y")])])
    with pytest.raises(Fail, match="this edit does not round-trip"):
        write_in_place(str(path), lambda _: two_blocks)
    assert path.read_text(encoding="utf-8") == "@p x\n"


def test_ref_list_and_check(capsys, doc, tmp_path):
    assert run(capsys, "ref", doc) == (0, "root\n", "")
    assert run(capsys, "ref", doc, "--check") == (0, "", f"{doc}: refs OK\n")
    bad = tmp_path / "bad.agd"
    bad.write_text('@x-a refs="#gone" [#a]\n\n@ref #missing\n', encoding="utf-8")
    code, _, err = run(capsys, "ref", bad, "--check")
    assert code == 1
    assert err == (
        f"{bad}: dangling reference `#gone` at line 1: no block with this id\n"
        f"{bad}: dangling reference `#missing` at line 3: no block with this id\n"
    )


def test_ids_text_json_and_kind(capsys, doc):
    assert run(capsys, "ids", doc)[1] == (
        "meta\nroot\nno-mocks\tuse real services\nblog\tblog engine\nr1\n"
    )
    assert run(capsys, "ids", doc, "--kind", "x-project", "--json")[1] == (
        '[{"desc":"blog engine","id":"blog","kind":"x-project"}]\n'
    )
    assert run(capsys, "ids", doc, "--kind", "nothing", "--json")[1] == "[]\n"


def test_get_order_json_limit_and_errors(capsys, doc):
    code, out, _ = run(capsys, "get", doc, "#no-mocks", "--follow-refs", "--with-backlinks")
    assert code == 0
    assert [line for line in out.splitlines() if line.startswith("@")] == [
        '@x-feedback desc="use real services" refs="#root" [#no-mocks]',
        "@h1 Memory [#root]",
        '@x-project desc="blog engine" refs="#no-mocks, #root" [#blog]',
    ]
    code, out, _ = run(capsys, "get", doc, "root", "--with-backlinks", "--limit", "1", "--json")
    assert [b["id"] for b in json.loads(out)] == ["root", "no-mocks"]
    assert "span" in json.loads(out)[0]
    code, out, err = run(capsys, "get", doc, "root", "nope")
    assert (code, out, err) == (1, "", "agd: no block with id `nope`\n")
    assert run(capsys, "get", doc, "root", "--depth", "2")[0] == 2
    assert run(capsys, "get", doc, "root", "--limit", "-1")[0] == 2


def test_get_from_stdin(capsys):
    code, out, _ = run(capsys, "get", "-", "a", stdin="@h1 A [#a]\n\n@h1 B [#b]\n")
    assert (code, out) == (0, "@h1 A [#a]\n")


def test_search_text_and_json(capsys, doc):
    assert run(capsys, "search", doc, "blog", "-i") == (
        0,
        "blog\tx-project\tThe Blog is written in Rust.\n",
        "",
    )
    assert run(capsys, "search", doc, "blog")[1] == ""
    assert run(capsys, "search", doc, "real", "--json")[1] == (
        '[{"excerpt":"Integration tests hit a real database.","id":"no-mocks","kind":"x-feedback"}]\n'
    )
    assert run(capsys, "search", doc, "zzz", "--json")[1] == "[]\n"


def test_backlinks_text_and_json(capsys, doc):
    assert run(capsys, "backlinks", doc, "#root")[1] == (
        "no-mocks\tx-feedback\tuse real services\nblog\tx-project\tblog engine\nr1\tref\n"
    )
    assert run(capsys, "backlinks", doc, "blog", "--json")[1] == "[]\n"


def test_missing_file_and_bad_utf8(capsys, tmp_path):
    code, _, err = run(capsys, "ids", tmp_path / "nope.agd")
    assert code == 1 and err.startswith(f"agd: reading {tmp_path / 'nope.agd'}: No such file")
    raw = tmp_path / "raw.agd"
    raw.write_bytes(b"@p \xff\n")
    code, _, err = run(capsys, "parse", raw)
    assert code == 1 and "valid UTF-8" in err


def test_help_shows_examples(capsys):
    code, out, _ = run(capsys, "edit", "--help")
    assert code == 0 and "insert_after" in out and "Examples:" in out


def agd_subprocess(*args, stdin: str = ""):
    return subprocess.run(
        [sys.executable, str(ROOT / "bin" / "agd"), *map(str, args)],
        input=stdin.encode(),
        capture_output=True,
        timeout=60,
    )


def test_bin_agd_runs_from_a_checkout(doc):
    proc = agd_subprocess("get", doc, "#r1", "--json")
    assert proc.returncode == 0
    assert json.loads(proc.stdout)[0]["content"]["value"] == [{"kind": "ref", "text": "root"}]
    assert agd_subprocess("--version").stdout == b"agd 0.3.3\n"


def test_bin_agd_errors_are_one_line_no_traceback():
    proc = agd_subprocess("parse", "-", stdin="@p ok\n" + "é" * 40 + "\n")
    assert proc.returncode == 1
    assert b"Traceback" not in proc.stderr
    assert proc.stderr.decode().count("\n") == 1


VERBS = [
    "parse",
    "validate",
    "format",
    "convert",
    "bench",
    "id",
    "edit",
    "ref",
    "ids",
    "get",
    "search",
    "backlinks",
]


@pytest.mark.parametrize("verb", VERBS)
def test_every_verb_has_help_with_an_example(capsys, verb):
    code, out, _ = run(capsys, verb, "--help")
    assert code == 0
    assert "Example" in out


@pytest.mark.parametrize("verb", VERBS)
def test_every_agd_verb_rejects_a_bogus_flag_with_its_own_usage(verb, capsys, tmp_path) -> None:
    good = tmp_path / "good.agd"
    good.write_text("@p hi\n")
    args = {"convert": ["convert", "to-md", str(good)], "edit": ["edit", str(good), "--op", "{}"]}
    argv = args.get(
        verb,
        [verb, str(good), "x"] if verb in ("get", "search", "backlinks") else [verb, str(good)],
    )
    assert main([*argv, "--bogus"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[0].startswith(f"usage: agd {verb} "), err
    assert err.splitlines()[-1] == f"agd {verb}: error: unrecognized arguments: --bogus"


def test_bench_prints_six_lines(capsys, doc):
    code, out, _ = run(capsys, "bench", doc)
    lines = out.splitlines()
    assert code == 0 and len(lines) == 6
    assert lines[0] == f"file:     {doc}"
    assert lines[1] in ("encoding: cl100k_base", "encoding: estimate (chars/4)")
    assert lines[3].startswith("Markdown: ") and lines[3].endswith(" vs AGD)")


def test_every_verb_is_in_the_format_docs():
    docs = (ROOT / "docs" / "FORMAT.md").read_text(encoding="utf-8")
    commands = docs.split("## The `agd` command", 1)[1]
    assert all(verb in commands for verb in VERBS)


@pytest.mark.parametrize(
    "args",
    [
        ("format", "-i"),
        ("id", "--strip", "-i"),
        ("edit", "-i", "--op", '{"op":"set_attr","id":"blog","key":"status","value":"done"}'),
    ],
)
def test_in_place_verbs_refuse_a_read_only_file_like_the_store(capsys, doc, args):
    doc.write_text(DOC.replace("@p plain paragraph", "@p   plain   paragraph"), encoding="utf-8")
    before = doc.read_bytes()
    os.chmod(doc, 0o444)
    try:
        code, _, err = run(capsys, args[0], doc, *args[1:])
    finally:
        os.chmod(doc, 0o644)
    assert code != 0 and "read-only" in err and "chmod u+w" in err
    assert doc.read_bytes() == before
