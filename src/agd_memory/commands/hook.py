"""`agd-memory hook EVENT`: the Claude Code hook adapter, payload on stdin.

Parsed by hand, not with argparse: a hook is a fresh process on every prompt and
argparse alone costs it about 5 ms.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import UsageError


def hook(argv: Sequence[str]) -> int:
    from ..claude import hooks

    args = list(argv)
    if args in (["-h"], ["--help"]):
        print(hooks.USAGE)
        return 0
    if len(args) != 1 or args[0] not in hooks.HANDLERS:
        events = "|".join(hooks.HANDLERS)
        problem = (
            f"unknown event {args[0]!r}; give one of {events}"
            if len(args) == 1
            else f"give exactly one event ({events}), got {len(args)} arguments"
        )
        raise UsageError(hooks.USAGE, f"agd-memory hook: error: {problem}")
    return hooks.main(args)
