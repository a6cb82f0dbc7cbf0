"""`agd-memory review`: the pending proposals of review mode, and accept, reject, edit.

    agd-memory review                      # what each pending item would change, as a diff
    agd-memory review accept p1a2b3c4 ...  # or --all: written through the store
    agd-memory review reject p1a2b3c4 ...  # dropped, and never proposed again
    agd-memory review edit p1a2b3c4        # $EDITOR on the proposal as AGD text, then checked
    agd-memory review mode on|off|default  # the persistent switch (AGD_DISTILL_REVIEW, config file)

Item ids are listed by `review`; a unique prefix will do. The queue itself is
`agd_memory.distill.review`.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from .. import paths, store
from ..distill import review
from ..errors import UserError
from ..settings import Settings
from .args import emit_json, verb_parser

ACTIONS = ("list", "accept", "reject", "edit", "mode")
MODES = {"on": True, "off": False, "default": None}
EDIT_LIMIT = 1024 * 1024


def _parser() -> argparse.ArgumentParser:
    p = verb_parser(
        "review",
        "List the proposals waiting in review mode (AGD_DISTILL_REVIEW; on for the team layer), "
        "and accept, reject or edit them.",
        "agd-memory review accept p1a2b3c4",
    )
    p.add_argument("action", nargs="?", default="list", choices=ACTIONS, help="default: list")
    p.add_argument("ids", nargs="*", metavar="ID", help="pending item ids (from `review`)")
    p.add_argument("--all", action="store_true", help="accept every pending item")
    p.add_argument("--scope", default="all", choices=list(paths.SCOPES), help="layer (default all)")
    p.add_argument("--json", action="store_true", help="machine-readable list")
    p.add_argument("--cwd", help="project folder (default: the current folder)")
    return p


def review_verb(argv: list[str]) -> int:
    p = _parser()
    args = p.parse_args(argv)
    if args.action == "list" and args.ids:
        p.error("`review` lists; say `review accept|reject|edit ID`")
    if args.action == "accept" and bool(args.ids) == args.all:
        p.error("accept needs item ids or --all (not both)")
    if args.action == "reject" and not args.ids:
        p.error("reject needs item ids")
    if args.action == "edit" and len(args.ids) != 1:
        p.error("edit takes exactly one item id")
    if args.all and args.action != "accept":
        p.error("--all goes with accept")
    if args.action == "mode" and (len(args.ids) != 1 or args.ids[0] not in MODES):
        p.error("mode takes one of on, off, default")
    settings = Settings.load()
    if args.action == "mode":
        return _mode(settings, MODES[args.ids[0]])
    files = store.open_files(paths.resolve(settings, cwd=args.cwd).select(args.scope), settings)
    if args.action == "list":
        return _list(files, as_json=args.json)
    if args.action == "edit":
        mf, item = _locate(files, args.ids[0])
        return _edit(mf, item)
    for mf, ids in _by_file(files, args.ids, every=args.all):
        lines = review.accept(mf, ids) if args.action == "accept" else review.reject(mf, ids)
        for line in lines:
            print(f"{mf.layer}: {line}")
    return 0


def _list(files: list[store.MemoryFile], *, as_json: bool) -> int:
    rows: list[dict[str, Any]] = []
    for mf in files:
        for line in review.malformed(mf):
            print(line, file=sys.stderr)
        for item in review.pending(mf):
            rows.append(
                {
                    "id": item.id,
                    "layer": mf.layer,
                    "file": str(mf.path),
                    "op": item.op,
                    "source": item.source,
                    "session": item.session,
                    "created": item.created,
                    "summary": item.summary,
                    "diff": review.describe(mf, item),
                }
            )
    if as_json:
        emit_json(rows)
        return 0
    if not rows:
        print("no proposals are waiting for review")
        return 0
    for row in rows:
        came = f"{row['source']}, session {row['session']}" if row["session"] else row["source"]
        print(f"== {row['id']}  {row['layer']}  {row['summary']}  ({came}, {row['created']})")
        print(row["diff"] or "(no change against the current file)")
        print()
    print(
        f"{len(rows)} waiting: `agd-memory review accept ID...|--all`, `review reject ID...`, "
        "`review edit ID`"
    )
    return 0


def _locate(files: list[store.MemoryFile], given: str) -> tuple[store.MemoryFile, review.Item]:
    """The one file whose queue holds the item `given` (a unique prefix will do)."""
    key = given.strip().lstrip("#")
    found = []
    for mf in files:
        try:
            found.append((mf, review.find(mf, [given])[0]))
        except review.ReviewError:
            if key and any(i.id.startswith(key) for i in review.pending(mf)):
                raise  # the prefix names several items of this file: say that, not "not pending"
    if len(found) != 1:
        what = "is pending in several layers; pass --scope" if found else "is not pending"
        raise review.ReviewError(
            f"review item `{given}` {what}; run `agd-memory review` for the list"
        )
    return found[0]


def _by_file(
    files: list[store.MemoryFile], ids: list[str], *, every: bool
) -> list[tuple[store.MemoryFile, list[str]]]:
    if every:
        out = [(mf, [i.id for i in review.pending(mf)]) for mf in files]
        out = [(mf, ids) for mf, ids in out if ids]
        if not out:
            raise UserError("no proposals are waiting for review")
        return out
    grouped: dict[str, tuple[store.MemoryFile, list[str]]] = {}
    for given in ids:  # every id is found before anything is written
        mf, item = _locate(files, given)
        grouped.setdefault(str(mf.path), (mf, []))[1].append(item.id)
    return list(grouped.values())


def _edit(mf: store.MemoryFile, item: review.Item) -> int:
    text = review.editable_text(item)  # a plan cannot be edited: say so before the editor
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        raise UserError("set EDITOR (or VISUAL) to the editor to open, e.g. EDITOR=nano")
    with tempfile.TemporaryDirectory(prefix="agd-review-") as folder:
        path = Path(folder) / f"{item.id}.agd"
        path.write_text(text, encoding="utf-8")
        try:
            done = subprocess.run([*shlex.split(editor), str(path)], check=False)
        except OSError as exc:
            raise UserError(f"cannot run the editor `{editor}`: {exc.strerror or exc}") from None
        if done.returncode != 0:
            raise UserError(
                f"the editor exited with status {done.returncode}; review item {item.id} is unchanged"
            )
        from agd.errors import UnreadableFile
        from agd.files import read_text

        try:
            edited = read_text(path, EDIT_LIMIT)
        except UnreadableFile as exc:
            raise UserError(f"review edit: {exc}; review item {item.id} is unchanged") from None
    if edited == text:
        print(f"{item.id}: not changed")
        return 0
    new = review.replace(mf, item, review.from_text(item, edited))
    print(f"{new.id}: edited; it waits for review:")
    print(review.describe(mf, new))
    return 0


def _mode(settings: Settings, on: bool | None) -> int:
    """Review mode as a persistent setting: `AGD_DISTILL_REVIEW` in the config file."""
    from ..settings import read_json_object, write_config

    path = settings.config_file
    data = read_json_object(path, "review mode")
    if data is None:
        raise UserError(f"{path} is not a readable JSON object; fix or remove it, then try again")
    if on is None:
        data.pop("AGD_DISTILL_REVIEW", None)
    else:
        data["AGD_DISTILL_REVIEW"] = on
    write_config(path, data)
    what = {True: "on for every layer", False: "off for every layer"}.get(
        on, "back to its default (on for the team layer only)"
    )
    print(f"review mode {what} (saved to {path})")
    source = settings.sources.get("distill_review")
    if source in ("environment", "userConfig"):
        print(
            f"note: AGD_DISTILL_REVIEW from the {source} wins over the config file", file=sys.stderr
        )
    return 0
