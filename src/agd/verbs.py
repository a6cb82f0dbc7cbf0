"""One function per `agd` verb: read FILE, call the library, print (reference §3).

Each takes the parsed arguments and returns the exit status; errors are raised
(`AgdError`, `console.Fail`) and printed by `cli.main`. Modules a verb alone needs
are imported inside it, so the common verbs start fast.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from .console import Fail, os_message, read_text, write_err, write_in_place, write_out
from .errors import AgdError
from .jsonast import dumps_compact
from .model import Document
from .parser import parse as parse_text
from .serializer import serialize


def load(path: str) -> tuple[str, Document]:
    text = read_text(path)
    return text, parse_text(text)


def parse(ns: argparse.Namespace) -> int:
    text = read_text(ns.file)
    try:
        doc = parse_text(text)
    except AgdError as err:
        raise Fail(f"parsing {ns.file}: {err}") from None
    if ns.json:
        from .jsonast import document_to_dict, dumps_pretty

        write_out(dumps_pretty(document_to_dict(doc)))
    else:
        from .dump import dump

        write_out(dump(doc))
    return 0


def validate(ns: argparse.Namespace) -> int:
    text = read_text(ns.file)
    try:
        parse_text(text)
    except AgdError as err:
        write_err(f"{ns.file}: {err}\n")
        return 1
    write_err(f"{ns.file}: OK\n")
    return 0


def format_(ns: argparse.Namespace) -> int:
    text, doc = load(ns.file)
    out = serialize(doc)
    if ns.check:
        if out != text:
            write_err(f"{ns.file}: not canonical\n")
            return 1
        return 0
    if ns.in_place:
        write_in_place(ns.file, lambda current: current)  # re-read under the file's lock
        return 0
    write_out(out)
    return 0


def convert(ns: argparse.Namespace) -> int:
    from . import convert as conv

    text = read_text(ns.file)
    if ns.direction == "from-md":
        out = conv.from_markdown(text)
    elif ns.direction == "to-md":
        out = conv.to_markdown(parse_text(text))
    else:
        out = conv.to_html(parse_text(text))
    if ns.out is None:
        write_out(out)
        return 0
    from .atomic import write_atomic

    try:
        write_atomic(ns.out, out)
    except OSError as err:
        raise Fail(f"writing {ns.out}: {os_message(err)}") from None
    return 0


def bench(ns: argparse.Namespace) -> int:
    from .bench import report

    write_out(report(ns.file, read_text(ns.file)))
    return 0


def id_(ns: argparse.Namespace) -> int:
    from . import ids

    if not ns.add and not ns.strip:
        raise Fail("specify --add or --strip")
    _, doc = load(ns.file)
    return _print_or_write(ns, doc, ids.add_ids if ns.add else ids.strip_ids)


def edit(ns: argparse.Namespace) -> int:
    from . import edit as ops
    from .errors import InvalidAst

    _, doc = load(ns.file)
    try:
        op = ops.parse_op(ns.op)
    except InvalidAst as err:
        raise Fail(f"parsing operation JSON: {ns.op}: {err}") from None
    return _print_or_write(ns, doc, lambda current: ops.apply(current, op))


def _print_or_write(
    ns: argparse.Namespace, doc: Document, change: Callable[[Document], Document]
) -> int:
    """`change(doc)` to stdout; with `-i`, FILE re-read, changed and written under its lock."""
    if ns.in_place:
        write_in_place(ns.file, change)
    else:
        write_out(serialize(change(doc)))
    return 0


def ref(ns: argparse.Namespace) -> int:
    from .graph import check_refs
    from .refs import ref_nodes

    _, doc = load(ns.file)
    if not ns.check:
        targets = [t for block in doc.blocks for t in ref_nodes(block)]
        write_out("".join(t + "\n" for t in targets))
        return 0
    dangling = check_refs(doc)
    if not dangling:
        write_err(f"{ns.file}: refs OK\n")
        return 0
    write_err("".join(f"{ns.file}: {err}\n" for err in dangling))
    return 1


def entry(block) -> dict:
    """`{"desc"?, "id", "kind"}`: keys in alphabetical order, as the reference prints them."""
    out = {}
    if block.desc is not None:
        out["desc"] = block.desc
    out["id"] = block.id
    out["kind"] = block.kind
    return out


def ids(ns: argparse.Namespace) -> int:
    _, doc = load(ns.file)
    blocks = [b for b in doc.blocks if b.id is not None and (ns.kind is None or b.kind == ns.kind)]
    if ns.json:
        write_out(dumps_compact([entry(b) for b in blocks]))
        return 0
    write_out("".join(f"{b.id}\t{b.desc}\n" if b.desc is not None else f"{b.id}\n" for b in blocks))
    return 0


def get(ns: argparse.Namespace) -> int:
    from .graph import get as collect

    _, doc = load(ns.file)
    blocks = collect(
        doc,
        ns.ids,
        follow_refs=ns.follow_refs,
        depth=1 if ns.depth is None else ns.depth,
        with_backlinks=ns.with_backlinks,
        limit=ns.limit,
    )
    if ns.json:
        from .jsonast import block_to_dict, dumps_pretty

        write_out(dumps_pretty([block_to_dict(b) for b in blocks]))
    else:
        write_out(serialize(Document(blocks)))
    return 0


def search(ns: argparse.Namespace) -> int:
    from .search import search as find

    _, doc = load(ns.file)
    hits = find(doc, ns.query, ignore_case=ns.ignore_case, kind=ns.kind)
    if ns.json:
        write_out(dumps_compact([{"excerpt": h.excerpt, "id": h.id, "kind": h.kind} for h in hits]))
    else:
        write_out("".join(f"{h.id}\t{h.kind}\t{h.excerpt}\n" for h in hits))
    return 0


def backlinks(ns: argparse.Namespace) -> int:
    from .graph import backlinks as citing

    _, doc = load(ns.file)
    blocks = citing(doc, ns.id)
    if ns.json:
        write_out(dumps_compact([entry(b) for b in blocks]))
        return 0
    write_out(
        "".join(
            f"{b.id}\t{b.kind}\t{b.desc}\n" if b.desc is not None else f"{b.id}\t{b.kind}\n"
            for b in blocks
        )
    )
    return 0
