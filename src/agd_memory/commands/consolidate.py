"""`agd-memory consolidate`: propose how to tidy one memory layer, and write it when asked.

Examples:

    agd-memory consolidate                  # print the plan as a diff; nothing is written
    agd-memory consolidate --apply          # write it (one locked write, memory.agd.bak kept)
    agd-memory consolidate --scope global --plan-out plan.json
    agd-memory consolidate --from plan.json --apply   # the reviewed plan, without claude
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

from .. import paths, store
from ..distill import consolidate as cons
from ..distill import review
from ..errors import UserError
from ..settings import Settings
from ..store.rules import today
from .args import emit_json, read_input, verb_parser

PLAN_LIMIT = 4 * 1024 * 1024


def consolidate(argv: Sequence[str]) -> int:
    p = verb_parser(
        "consolidate",
        "Ask a headless claude -p, with no tools, to merge duplicates, supersede contradicted\n"
        "entries, sharpen vague descs, drop junk and add missing refs in one layer. Prints the\n"
        "plan as a diff; --apply writes it in one transaction and keeps memory.agd.bak.",
        "agd-memory consolidate --scope project --apply",
    )
    p.add_argument(
        "--scope",
        default="project",
        choices=list(paths.WRITE_SCOPES),
        help="layer (default project)",
    )
    p.add_argument("--apply", action="store_true", help="write the plan (default: only print it)")
    p.add_argument(
        "--from",
        dest="plan_in",
        metavar="PLAN.json",
        help="a plan saved by --plan-out: no claude call",
    )
    p.add_argument(
        "--plan-out", metavar="PLAN.json", help="also save the plan, to review and --apply later"
    )
    p.add_argument("--json", action="store_true", help="print the plan as JSON")
    p.add_argument(
        "--cwd", help="project folder whose memory is used (default: the current folder)"
    )
    args = p.parse_args(list(argv))
    settings = Settings.load()
    layer = paths.resolve(settings, cwd=args.cwd).select(args.scope)[0]
    mf = store.MemoryFile(layer.path, layer=layer.name, settings=settings)
    if not mf.exists():
        raise UserError(f"no memory file at {layer.path} ({layer.reason}); nothing to consolidate")
    doc = mf.document()
    if args.plan_in:
        plan = _read_plan(args.plan_in)
        if plan.path != str(mf.path):
            raise UserError(
                f"the plan {args.plan_in} is for {plan.path}, not {mf.path}; pass --scope or --cwd of that file"
            )
        # an edited plan keeps the limits too
        plan.changes = cons.cut(plan.changes, doc, plan.notes)
    else:
        from ..claude import headless

        def say(line: str) -> None:
            print(line, file=sys.stderr)

        try:
            plan = cons.propose(settings, doc, mf.path, log=say)
        except headless.DistillFailed as exc:
            raise UserError(
                f"consolidate: the claude run failed: {exc}; nothing was written"
            ) from None
    if args.plan_out:
        from agd.atomic import write_atomic

        write_atomic(args.plan_out, json.dumps(plan.to_dict(), ensure_ascii=False, indent=1) + "\n")
    after, said = cons.change_document(doc, plan, today(settings))
    if args.json:
        emit_json({**plan.to_dict(), "diff": cons.diff(doc, after), "lines": said})
    else:
        skipped = [line for line in said if line.startswith("skipped ")]
        for note in plan.notes + skipped:
            print(f"note: {note}", file=sys.stderr)
        text = cons.diff(doc, after)
        if text:
            print(text)
        n = len(plan.changes)
        source = (
            f"the plan {args.plan_in}"
            if args.plan_in
            else f"{plan.chunks} claude call{'s' if plan.chunks != 1 else ''}"
            + (f", ${plan.cost_usd:.4f} reported" if plan.cost_usd else "")
        )
        print(f"{mf.path}: {n} change{'s' if n != 1 else ''} from {source}")
    if args.apply:
        lines = review.submit_plan(
            mf, plan, settings, review_first=False
        )  # --apply is the acceptance
    elif plan.changes and review.enabled(settings, mf.layer):
        lines = review.submit_plan(mf, plan, settings)
    else:
        lines = ["dry run: nothing written; --apply writes this plan"] if plan.changes else []
    for line in lines:
        print(line, file=sys.stderr if args.json else sys.stdout)
    return 0


def _read_plan(path: str) -> cons.Plan:
    try:
        return cons.Plan.from_dict(json.loads(read_input(path, "--from", PLAN_LIMIT)))
    except UserError as exc:
        raise UserError(f"--from {path}: {exc}") from None
    except (ValueError, RecursionError, KeyError, TypeError) as exc:
        raise UserError(
            f"--from {path}: not a plan saved by --plan-out ({type(exc).__name__}: {exc})"
        ) from None
