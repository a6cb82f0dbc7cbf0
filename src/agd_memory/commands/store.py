"""The store's verbs: `save get toc delete rename where`, thin adapters over `store`.

Each builds `Settings.load()` once, resolves the layers with `paths.resolve` and
calls one store function. `save` keeps the earlier plugin's `agd_mem_save.py`
arguments, so the distiller prompt and users' scripts keep working. Every verb
takes `--json`; errors are raised as `UserError` and printed by `cli.main` as one
line with exit status 1.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator, Sequence

from .. import paths, store, unreadable
from ..errors import BlockNotFound
from ..settings import Settings
from .args import CONTENT_LIMIT, VerbParser, emit_json, read_input, verb_parser


def _parser(verb: str, description: str, example: str) -> VerbParser:
    p = verb_parser(verb, description, example)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--cwd", help="project folder (default: the current folder)")
    return p


def _scope_arg(p: argparse.ArgumentParser, default: str, choices: Sequence[str]) -> None:
    p.add_argument(
        "--scope", default=default, choices=list(choices), help=f"layer (default {default})"
    )


def _layers(args: argparse.Namespace) -> tuple[Settings, paths.Layers]:
    settings = Settings.load()
    return settings, paths.resolve(settings, cwd=args.cwd)


def _files(args: argparse.Namespace) -> list[store.MemoryFile]:
    settings, layers = _layers(args)
    return store.open_files(layers.select(args.scope), settings)


def _readable_files(args: argparse.Namespace) -> tuple[list[store.MemoryFile], bool]:
    """The layers' files that load, and whether one was left out (already reported on
    stderr with its fix; the verb still answers from the others, then exits 1)."""
    files, bad = unreadable.readable(_files(args))
    unreadable.warn(bad)
    return files, bool(bad)


def _id_list(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [p.strip().lstrip("#") for p in text.split(",") if p.strip().lstrip("#")]


def _result_json(result: store.DeleteResult | store.RenameResult) -> dict[str, object]:
    """A delete or rename result as JSON: its fields in order, the path as a string."""
    return {**result._asdict(), "path": str(result.path)}


# -- save ----------------------------------------------------------------------------


def save(argv: list[str]) -> int:
    p = _parser(
        "save",
        "Save or update one memory block (the lock, lifecycle dates, refs and secret checks apply).",
        'agd-memory save x-project db-choice --desc "database" --content "We use Postgres 16."',
    )
    p.add_argument("kind", help="x-user, x-feedback, x-project, x-reference or any x-<name>")
    p.add_argument("id", help="block id, e.g. db-choice")
    p.add_argument("--desc", help='one-line summary ("" clears it)')
    body = p.add_mutually_exclusive_group(required=True)
    body.add_argument("--content", help="the block's body")
    body.add_argument("--content-file", help="read the body from this file (- for stdin)")
    p.add_argument("--refs", help='ids this block relates to, comma list ("" clears)')
    p.add_argument("--status", help='open, done or superseded ("" clears)')
    p.add_argument("--supersedes", help="ids this block replaces, comma list")
    p.add_argument(
        "--keys",
        help='search terms recall matches like desc words, comma list ("" clears); '
        "synonyms, a user's wording, translations",
    )
    p.add_argument(
        "--allow-secrets", action="store_true", help="save even if it looks like a secret"
    )
    _scope_arg(p, "project", paths.WRITE_SCOPES)
    args = p.parse_args(argv)

    content = (
        args.content
        if args.content is not None
        else read_input(args.content_file, "--content-file", CONTENT_LIMIT)
    )
    settings, layers = _layers(args)
    layer = layers.select(args.scope)[0]
    mf = store.MemoryFile(layer.path, layer=layer.name, settings=settings)
    result = mf.save(
        args.kind,
        args.id,
        content,
        desc=args.desc,
        refs=_id_list(args.refs),
        status=args.status,
        supersedes=_id_list(args.supersedes),
        keys=args.keys,
        allow_secrets=args.allow_secrets,
    )
    from ..distill import autokeys

    autokeys.after_save(mf, result.id)  # an entry left with few keys gets more soon
    if args.json:
        emit_json(
            {
                "id": result.id,
                "kind": result.kind,
                "action": result.action,
                "path": str(result.path),
                "layer": layer.name,
                "refs": list(result.refs),
                "superseded": list(result.superseded),
                "ignored": list(result.ignored),
                "message": result.message,
            }
        )
    else:
        print(result.message)
    return 0


# -- get -----------------------------------------------------------------------------


def get(argv: list[str]) -> int:
    p = _parser(
        "get",
        "Print blocks by id from every layer, optionally with the blocks they cite and cite them.",
        "agd-memory get db-choice --follow-refs --with-backlinks",
    )
    p.add_argument("ids", nargs="+", metavar="ID")
    p.add_argument("--follow-refs", action="store_true", help="add the blocks these cite")
    p.add_argument("--depth", type=int, default=1, help="hops for --follow-refs (default 1)")
    p.add_argument("--with-backlinks", action="store_true", help="add the blocks citing these")
    p.add_argument("--limit", type=int, help="most extra blocks from refs and backlinks")
    p.add_argument(
        "--context", type=int, default=0, help="history: exchanges either side of each (default 0)"
    )
    _scope_arg(p, "all", (*paths.SCOPES, "history"))
    args = p.parse_args(argv)
    if args.scope == "history":
        return _get_history(args)
    files, left_out = _readable_files(args)
    result = store.get(
        files,
        args.ids,
        follow_refs=args.follow_refs,
        depth=args.depth,
        with_backlinks=args.with_backlinks,
        limit=args.limit,
    )
    from ..hygiene import usage

    usage.record_got(files, result.entries, args.ids)
    if args.json:
        emit_json({"entries": [e.to_dict() for e in result.entries], "missing": result.missing})
    else:
        sys.stdout.write("\n".join(e.to_agd() for e in result.entries))
    if result.missing:
        near = store.near_ids(files, result.missing)
        ids = ", ".join(
            f"#{i}"
            + (f" (did you mean {', '.join('#' + n for n in near[i])}?)" if i in near else "")
            for i in result.missing
        )
        where = "any layer" if args.scope == "all" else f"the {args.scope} layer"
        print(f"agd-memory: not found in {where}: {ids}", file=sys.stderr)
    return 1 if left_out or (result.missing and not result.entries) else 0


def _get_history(args: argparse.Namespace) -> int:
    from . import history

    settings = Settings.load()
    found = {i: history.around(settings, i, args.context) for i in args.ids}
    if args.json:
        emit_json(
            {
                "entries": [d for i in args.ids for d in found[i]],
                "missing": [i for i in args.ids if not found[i]],
            }
        )
    else:
        for i in args.ids:
            for d in found[i]:
                print(f"@x-exchange session={d['session']} n={d['n']} at={d['at']} [#{d['id']}]")
                print(d["text"] + "\n")
    missing = [i for i in args.ids if not found[i]]
    if missing:
        print(
            f"agd-memory: not in the history: {', '.join('#' + i.lstrip('#') for i in missing)} "
            "(ids come from `agd-memory search --scope history`)",
            file=sys.stderr,
        )
    return 1 if missing else 0


# -- toc -----------------------------------------------------------------------------


FILTERS = ("kind", "status", "since")


def toc(argv: list[str]) -> int:
    p = _parser(
        "toc",
        "The table of contents of every layer (what a session starts with), or a filtered list.",
        "agd-memory toc --kind project --status open",
    )
    p.add_argument("--kind", help="only this kind (x-project or project)")
    p.add_argument("--status", help="only this status (open, done, superseded)")
    p.add_argument("--since", help="only entries updated (or created) on or after YYYY-MM-DD")
    p.add_argument(
        "--budget", type=int, help="token budget of the table (default AGD_TOC_TOKEN_BUDGET)"
    )
    _scope_arg(p, "all", paths.SCOPES)
    args = p.parse_args(argv)
    from .. import toc as toc_module

    files, left_out = _readable_files(args)
    settings = files[0].settings if files else Settings.load()
    filtered = args.kind or args.status or args.since
    if args.json or filtered:
        entries = toc_module.list_entries(
            files, kind=args.kind, status=args.status, since=args.since
        )
        if args.json:
            keys = (
                "id",
                "kind",
                "desc",
                "status",
                "created",
                "updated",
                "layer",
                "refs",
                "supersedes",
            )
            emit_json([{k: v for k, v in e.to_dict().items() if k in keys} for e in entries])
        elif not entries:  # as `search` says "no blocks match": status 0, nothing is wrong
            given = [f"--{k} {v}" for k, v in vars(args).items() if k in FILTERS and v]
            print(f"no entries match {' '.join(given)}")
        else:
            for e in entries:
                notes = ", ".join(x for x in (e.status, e.date) if x)
                print(f"#{e.id}\t{e.kind}\t{e.desc or ''}" + (f"\t[{notes}]" if notes else ""))
        return 1 if left_out else 0
    if args.budget is not None:
        settings = settings.replace(toc_token_budget=args.budget)
    more = "+{n} more entries (a larger --budget, or --kind/--status/--since, lists them)"
    sys.stdout.write(toc_module.render(files, settings, more_line=more))
    return 1 if left_out else 0


# -- delete, rename --------------------------------------------------------------------


def delete(argv: list[str]) -> int:
    p = _parser(
        "delete",
        "Remove a block; prints the blocks that still cite it.",
        "agd-memory delete old-note",
    )
    p.add_argument("id")
    _scope_arg(p, "project", paths.WRITE_SCOPES)
    args = p.parse_args(argv)
    with _points_to_other_layers(args, args.id):
        result = _files(args)[0].delete(args.id)
    if args.json:
        emit_json(_result_json(result))
    else:
        print(result.message)
    return 0


def rename(argv: list[str]) -> int:
    p = _parser(
        "rename",
        "Rename a block and rewrite every refs, supersedes and #citation of it in the file.",
        "agd-memory rename db db-choice",
    )
    p.add_argument("old")
    p.add_argument("new")
    _scope_arg(p, "project", paths.WRITE_SCOPES)
    args = p.parse_args(argv)
    with _points_to_other_layers(args, args.old):
        result = _files(args)[0].rename(args.old, args.new)
    if args.json:
        emit_json(_result_json(result))
    else:
        print(result.message)
    return 0


@contextlib.contextmanager
def _points_to_other_layers(args: argparse.Namespace, block_id: str) -> Iterator[None]:
    """A block missing from the layer a write verb changes, but present in another layer:
    the error says which layer has it and the `--scope` that reaches it."""
    try:
        yield
    except BlockNotFound as exc:
        settings, layers = _layers(args)
        found, _ = unreadable.readable(
            [f for f in store.open_files(layers.select("all"), settings) if f.layer != args.scope]
        )
        have = [f.layer for f in found if f.entry(block_id) is not None]
        if not have:
            raise
        flags = " or ".join(f"--scope {layer}" for layer in have)
        where = " and ".join(f"the {layer} layer" for layer in have)
        raise BlockNotFound(
            f"no block #{block_id.lstrip('#')} in the {args.scope} layer; it is in {where}: "
            f"run it again with {flags}",
            block_id=block_id,
            path=exc.path,
        ) from None


# -- where -----------------------------------------------------------------------------


def where(argv: list[str]) -> int:
    p = _parser(
        "where",
        "Print the project and global memory files this folder resolves to, and why.",
        "agd-memory where --cwd ~/src/myproject",
    )
    args = p.parse_args(argv)
    import os

    from ..errors import MemoryFileError

    settings, layers = _layers(args)
    report: dict[str, dict[str, object]] = {}
    errors = []
    for layer in (layers.team, layers.project, layers.global_):
        if layer is None:  # no team layer outside a git repository
            continue
        info: dict[str, object] = {"path": str(layer.path), "reason": layer.reason}
        if layer.refused:
            info["exists"], info["error"] = False, layer.refused
            errors.append(layer.refused)
            report[layer.name] = info
            continue
        try:  # the store's rule: only a missing file is "not created yet"
            info["exists"] = store.MemoryFile(layer.path, layer=layer.name).exists()
            if not info["exists"] and os.path.lexists(layer.path):
                info["error"] = f"memory file {layer.path} is not a regular file; give a file"
        except MemoryFileError as exc:  # a path through a file, too long, no access, a loop
            info["exists"], info["error"] = False, exc.message
        errors += [str(info["error"])] if "error" in info else []
        report[layer.name] = info
    report["index"] = {"path": str(paths.index_file(settings))}
    if args.json:
        emit_json(report)
    else:
        for name in [n for n in ("team", "project", "global") if n in report]:
            info = report[name]
            state = "exists" if info["exists"] else "not created yet"
            print(f"{name}: {info['path']} ({'cannot be read' if 'error' in info else state})")
            print(f"  why: {info['reason']}")
    for line in errors:
        print(f"agd-memory: {line}", file=sys.stderr)
    return 1 if errors else 0
