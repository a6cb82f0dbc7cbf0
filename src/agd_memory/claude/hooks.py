"""Claude Code hook adapters: payload JSON on stdin in, hook JSON on stdout out.

`agd-memory hook session-start|prompt|session-end` is what `hooks/run` executes
and what a developer pipes a captured payload into. Each event is a thin adapter:

- session-start: the table of contents of the project and global layers
  (`claude.session_toc.render`), as `additionalContext`.
- prompt: auto-recall for the typed prompt (`agd_memory.recall.recall`), as
  `additionalContext`; silent when recall skips.
- session-end: hands the payload to the distiller (`agd_memory.distill.hook`),
  which returns at once after starting a detached worker; no output.

Key decisions:
- The payload is read once and normalised into a frozen `HookPayload`, absent
  fields `""`, so nothing after it knows which Claude Code version sent it.
  The prompt comes from `prompt` (the field Claude Code sends), `user_prompt` as
  a fallback (the earlier plugin read only that one, so recall never fired); the
  project comes from the payload's `cwd`, not the process cwd.
- Fail open in one place (`main`): any exception, even `SystemExit`, is logged
  to the debug log and the hook exits 0 with empty stdout. Stdout is written
  once, at the end, so Claude Code never sees half an answer.
- The domain modules are imported inside the handlers, so a hook pays only for
  what its event needs, and a missing module fails open like any other error.
- Output is hook JSON (`hookSpecificOutput` with `hookEventName`), capped below
  Claude Code's 10,000-character limit, past which the text would be moved to a
  file and the model would see only a preview.
- What the user must act on (a memory file that does not parse, a failed install)
  is told to the user, not only to the model: any handler calls `notify_user(line)`
  and `main` sends the lines as the hook output's `systemMessage`, which Claude
  Code shows in the session and does not give the model. Notices are sent even
  when the handler then fails open.
- Text for the model is written as factual statements, never as instructions:
  Claude Code's hooks docs warn that text framed as out-of-band commands can trip
  the model's prompt-injection defences.
"""

from __future__ import annotations

import json
import os
import sys
from collections import namedtuple
from collections.abc import Callable, Mapping, Sequence

from .. import debuglog
from ..settings import Settings

TYPE_CHECKING = False  # not `typing`'s: the prompt hook does not import `typing`
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from .. import paths
    from ..store import Entry, MemoryFile

MAX_CONTEXT_CHARS = 9_500
"""Claude Code moves hook output over 10,000 characters to a file; stay under it, with room for the note."""

TOC_TOOL = "mcp__plugin_agd-memory_agd-memory__agd_memory_toc"
"""The TOC tool as the model sees it in Claude Code (plugin and server both `agd-memory`)."""

MAX_NOTICE_CHARS = 2_000
"""The user notices together: a few lines, far below Claude Code's cap on `systemMessage`."""

USAGE = "usage: agd-memory hook session-start|prompt|session-end  (payload JSON on stdin)"


# A named tuple, not a dataclass (`dataclasses` costs a hook ~8 ms to import) nor a
# `typing.NamedTuple` (`typing` costs 3-5 ms more, and compiles each field's annotation).
_PAYLOAD_FIELDS = (
    "hook_event_name session_id transcript_path cwd prompt source reason permission_mode raw"
)


class HookPayload(namedtuple("HookPayload", _PAYLOAD_FIELDS, defaults=("",) * 8 + (None,))):
    """The fields of a Claude Code hook payload this plugin uses; absent ones are `""`.

    `hook_event_name`: `SessionStart`, `UserPromptSubmit`, `SessionEnd` (as Claude Code
    names them). `cwd`: the session's working directory, where the project layer is looked
    up. `prompt`: UserPromptSubmit's typed text (`prompt`, else the older `user_prompt`).
    `source`: SessionStart's `startup`, `resume`, `clear`, `compact`, `fork`. `reason`:
    SessionEnd's `clear`, `resume`, `logout`, `prompt_input_exit`, `other`. `raw`: the
    payload as received (a dict, `{}` when stdin was not a JSON object)."""

    __slots__ = ()

    hook_event_name: str
    session_id: str
    transcript_path: str
    cwd: str
    prompt: str
    source: str
    reason: str
    permission_mode: str
    raw: Mapping[str, Any] | None


def normalize(data: object) -> HookPayload:
    """Build a `HookPayload` from whatever JSON value arrived; never raises."""
    if not isinstance(data, dict):
        data = {}

    def text(key: str) -> str:
        value = data.get(key)
        return value if isinstance(value, str) else ""

    return HookPayload(
        hook_event_name=text("hook_event_name"),
        session_id=text("session_id"),
        transcript_path=text("transcript_path"),
        cwd=text("cwd"),
        prompt=text("prompt") or text("user_prompt"),
        source=text("source"),
        reason=text("reason"),
        permission_mode=text("permission_mode"),
        raw=data,
    )


def parse_payload(raw: bytes) -> HookPayload:
    """Decode stdin bytes; malformed or non-object JSON gives an empty payload (logged)."""
    if not raw.strip():
        return normalize({})
    try:
        data = json.loads(raw.decode("utf-8", errors="replace"))
    except ValueError as exc:
        debuglog.log(f"hook: stdin is not JSON ({exc}); using an empty payload")
        return normalize({})
    if not isinstance(data, dict):
        debuglog.log(
            f"hook: stdin is JSON {type(data).__name__}, not an object; using an empty payload"
        )
    return normalize(data)


# -- notices to the user ------------------------------------------------------------------

_notices: list[str] = []


def notify_user(line: str) -> None:
    """Tell the user `line` in this hook's output (`systemMessage`: shown to the user,
    not to the model). One line, saying what happened and what to do; a repeated line
    is sent once. Call it from any handler, before or after its own work."""
    line = " ".join(line.split())
    if line and line not in _notices:
        _notices.append(line)
    debuglog.log(f"hook: user notice: {line}")


def take_notices() -> list[str]:
    """The notices queued so far, emptying the queue (`main` calls it once per run)."""
    taken = list(_notices)
    _notices.clear()
    return taken


# -- the layers a hook reads ------------------------------------------------------------


_LAYERS: dict[str, paths.Layers] = {}


def layers_of(settings: Settings, cwd: str) -> paths.Layers:
    """The layers of the project at `cwd`, resolved once per hook process (SessionStart's
    notices and the TOC all ask; a hook process serves one payload)."""
    if cwd not in _LAYERS:
        from .. import paths

        _LAYERS[cwd] = paths.resolve(settings, cwd=cwd or None)  # None: the process's folder
    return _LAYERS[cwd]


HOOK_MAX_ENTRIES = 25_000
"""Entries a hook reads from one layer at most: a committed file of 400,000 empty entries
must not hold every prompt up to its time limit (the other layers keep working)."""
HOOK_MAX_BYTES = 8 * 1024 * 1024
"""Bytes a hook reads from one layer at most: 300 entries of 50 KB (15 MB, few entries)
held the prompt hook past its 5 s limit while indexing; 10,000 ordinary entries take ~3 MB."""
COUNT_FROM_BYTES = HOOK_MAX_ENTRIES * len("@x-a\n\n")
"""Files smaller than this cannot hold more entries than a hook can afford (the shortest
entry and its blank line): not counted (a read and a byte count, ~0.1 ms per 100 KB)."""


def _existing_layers(settings: Settings, cwd: str, scope: str) -> list[paths.Layer]:
    layers = layers_of(settings, cwd)
    existing = []
    for layer in layers.select(scope):
        if layer.path.is_file():
            if not _too_many_entries(settings, layer):
                existing.append(layer)
        elif layer.path.exists():
            debuglog.log(f"hook: skipping {layer.name} layer {layer.path}: not a file")
    return existing


def _too_many_entries(settings: Settings, layer: paths.Layer) -> bool:
    """True (and the user told once per file size) when the layer is larger than
    HOOK_MAX_BYTES or holds more than HOOK_MAX_ENTRIES entries; counted from the bytes,
    without parsing."""
    from agd.errors import UnreadableFile

    try:
        size = layer.path.stat().st_size
        if size < COUNT_FROM_BYTES:
            return False
        if size > HOOK_MAX_BYTES:
            if _once(settings, "too-large", f"{layer.path}:{size}"):
                notify_user(
                    f"{layer.path} ({layer.name} layer) is {size / 1048576:.1f} MiB, more than "
                    f"the {HOOK_MAX_BYTES // 1048576} MiB a hook reads from one layer: it is left "
                    "out of the session's table of contents and auto-recall (`agd-memory search` "
                    "still reads it)"
                )
            return True
        n = _entry_count(settings, layer.path)
    except (OSError, UnreadableFile):
        return False  # the readers report what is wrong with the file
    if n <= HOOK_MAX_ENTRIES:
        return False
    if _once(settings, "too-many-entries", f"{layer.path}:{size}"):
        notify_user(
            f"{layer.path} ({layer.name} layer) has {n} entries, more than the "
            f"{HOOK_MAX_ENTRIES} a hook reads from one layer: it is left out of the session's "
            "table of contents and auto-recall (`agd-memory search` still reads it)"
        )
    return True


def _entry_count(settings: Settings, path: Path) -> int:
    """The entries of the file at `path`, counted from its bytes once per version of the
    file: the count is kept in the disk cache under the file's identity (path, size,
    mtime, inode), so a prompt reads a few bytes, not a memory of 10,000 blocks (~9 ms)."""
    from pathlib import Path

    from agd.files import read_bytes

    from .. import diskcache

    key = diskcache.file_key(path)
    cache_dir = Path(settings.data_dir) / "cache" if settings.data_dir else None
    if key is not None:
        cached = diskcache.read(cache_dir, "entry-count", key[0], key)
        if isinstance(cached, int):
            return cached
    n = read_bytes(path, 64 * 1024 * 1024).count(b"\n@x-")
    if key is not None:
        diskcache.write(cache_dir, "entry-count", key[0], key, n)
    return n


def memory_files(
    settings: Settings, cwd: str, *, scope: str = "all", left_out: list[str] | None = None
) -> list[MemoryFile]:
    """The existing, readable memory files of `scope` for the project at `cwd`, project first.

    A file that does not parse or cannot be read is left out, so a broken project file
    still lets the global layer through, and vice versa; the user is told at once
    (`notify_user`: which file, which line, the fix) and a factual line for the model
    is added to `left_out`.
    """
    existing = _existing_layers(settings, cwd, scope)
    if not existing:
        return []  # the common case in a project without memory: skip importing the store
    from .. import store, unreadable

    # entries(), not document(): it is served from the store's disk cache, while
    # document() would parse the whole file in every hook process.
    files, bad = unreadable.readable(
        [store.MemoryFile(layer.path, layer=layer.name, settings=settings) for layer in existing]
    )
    for item in bad:
        from . import parse_notice

        notify_user(unreadable.for_user(item))
        parse_notice.remember(settings, item.path)  # the prompt hook stays quiet about it
        if left_out is not None:
            left_out.append(unreadable.for_model(item))
    return files


class LayerFile:
    """A layer's memory file as recall reads it (`recall.front.MemorySource`): recall
    reads its analysis from its own disk cache, so the store is imported only when the
    entries are needed (a changed file, or a block to render), not on every prompt; a
    layer that fails is skipped and logged by recall. A file that stopped parsing since
    the user was last told (at SessionStart, or by an earlier prompt) gets one notice
    (`parse_notice`): recall would otherwise go quiet without a word."""

    __slots__ = ("path", "layer", "_settings")

    def __init__(self, path: Path, layer: str, settings: Settings) -> None:
        self.path = path
        self.layer = layer
        self._settings = settings

    def exists(self) -> bool:
        return self.path.is_file()

    def entries(self) -> list[Entry]:
        from ..errors import MemoryFileError
        from ..store import MemoryFile

        try:
            return MemoryFile(self.path, layer=self.layer, settings=self._settings).entries()
        except MemoryFileError as exc:
            from .. import unreadable
            from . import parse_notice

            if parse_notice.first_time(self._settings, self.path):
                item = unreadable.Unreadable(self.layer, str(self.path), exc)
                notify_user(unreadable.for_user(item))
            raise


# -- handlers: each returns the additionalContext text, or None to stay silent ----------


def session_start(payload: HookPayload, settings: Settings) -> str | None:
    _first_session_notice(settings)
    from . import injected

    injected.session_start(settings, payload.session_id, payload.source)
    _mcp_sdk_notice()
    _review_notice(settings, payload.cwd)
    _team_notice(settings, payload.cwd)
    left_out: list[str] = []
    files = memory_files(settings, payload.cwd, left_out=left_out)
    history = _history_line(settings, payload.cwd)
    if not files and not left_out and not history:
        debuglog.log(f"hook session-start: no memory for {payload.cwd or os.getcwd()}")
        return None
    text = ""
    if files:
        from ..hygiene import staleness
        from . import session_toc

        staleness.session_check(files, payload.cwd)  # the TOC marks what it finds
        text = session_toc.render(files, settings)
        from ..distill import autokeys

        autokeys.at_session_start(files, settings)  # entries with few keys: one keys run
    if left_out:
        text = "\n".join([*left_out, text.strip()]) + "\n"
    if history:
        text = (text.rstrip("\n") + "\n" if text.strip() else "") + history + "\n"
    return text if text.strip() else None


def _history_line(settings: Settings, cwd: str) -> str:
    """One factual line saying the session history exists, how far back, and what finds it."""
    try:
        from ..history import layout
        from .session_toc import TOOL_PREFIX

        found = layout.summary(layout.folder_of(layers_of(settings, cwd).project.path))
    except Exception as exc:  # fail open: the TOC still goes out
        debuglog.log(f"hook session-start: history check failed: {type(exc).__name__}: {exc}")
        return ""
    if found is None:
        return ""
    n, oldest = found
    return (
        f"Session history: the exchanges of {n} past session{'s' if n != 1 else ''} of this "
        f"project since {oldest} are kept; {TOOL_PREFIX}agd_memory_search with "
        'scope="history" finds what happened and when, exact errors, numbers and commands '
        "that memory does not hold."
    )


def _team_notice(settings: Settings, cwd: str) -> None:
    """One line to the user, once per clone, when the repository shares team memory but the
    user has not run `team init` in it: nothing is written to the clone's git config and no
    model call is spent on its team file until then (team/registration.py)."""
    try:
        from ..team import registration

        root = registration.untrusted_clone(cwd or None)
        if root is None or not _once(settings, "team-told", str(root)):
            return
    except Exception as exc:  # fail open: the TOC still goes out
        debuglog.log(f"hook session-start: team check failed: {type(exc).__name__}: {exc}")
        return
    notify_user(
        f"{root} shares team memory in .claude/memory.agd: the model sees it marked as the "
        "repository's; /agd-memory:team-init (in a shell: `agd-memory team init`) sets up "
        "its merge driver and lets background runs key it"
    )


def _once(settings: Settings, kind: str, name: str = "") -> bool:
    """True the first time (kind, name) is asked in this data folder, False after: the mark
    is created exclusively, so two sessions starting at once say it once, and a folder
    that cannot hold it means silence rather than a line every time."""
    import zlib

    mark = settings.data_dir / (f"{kind}-{zlib.crc32(name.encode()):08x}" if name else kind)
    try:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        os.close(os.open(mark, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        return False
    except OSError as exc:
        debuglog.log(f"hook session-start: cannot write {mark}: {exc}")
        return False
    return True


def _review_notice(settings: Settings, cwd: str) -> None:
    """One line to the user (never the model) when proposals wait in review mode."""
    try:
        from ..distill import queuefile

        layers = layers_of(settings, cwd)
        files = [layer.path for layer in (layers.team, layers.project, layers.global_) if layer]
        waiting = queuefile.count(settings, files)
    except Exception as exc:  # fail open: the TOC still goes out
        debuglog.log(f"hook session-start: review queue check failed: {type(exc).__name__}: {exc}")
        return
    if waiting:
        s = "s" if waiting != 1 else ""
        notify_user(
            f"{waiting} proposal{s} waiting for review — /agd-memory:review "
            "(in a shell: `agd-memory review`)"
        )


FIRST_SESSION_MARK = "first-session-told"
FIRST_SESSION_NOTICE = (
    "memory is on. Its commands are slash commands: /agd-memory:review, /agd-memory:setup, "
    "/agd-memory:doctor, /agd-memory:memory-view (type /agd-memory: for all); "
    "/agd-memory:install-cli puts `agd-memory` on your shell's PATH"
)


def _first_session_notice(settings: Settings) -> None:
    """One line the first session after an install (the plugin data folder is new then),
    never again."""
    if _once(settings, FIRST_SESSION_MARK):
        notify_user(FIRST_SESSION_NOTICE)


def _mcp_sdk_notice() -> None:
    """Starts the MCP SDK's background install when its venv is missing (mcp/sdk.py) and
    tells the user it is installing, or why the last install failed and what to do."""
    try:
        from ..mcp import sdk

        line = sdk.session_notice()
    except Exception as exc:  # fail open: the TOC still goes out
        debuglog.log(f"hook session-start: MCP SDK check failed: {type(exc).__name__}: {exc}")
        return
    if line:
        notify_user(line)


def prompt(payload: HookPayload, settings: Settings) -> str | None:
    # Every rule of the prompt path (disabled, empty prompt, global layer off, ...) is
    # recall's, decided there once.
    files = [
        LayerFile(layer.path, layer.name, settings)
        for layer in _existing_layers(settings, payload.cwd, "all")
    ]
    if not files:
        _recall_debug("skip: memory_file_missing")
        return None
    from .. import recall

    result = recall.recall(payload.prompt, files, settings)
    if result.skipped:
        _recall_debug(f"skip: {result.skipped}")
        return None
    ids = [c.entry.id for c in result.chosen]
    _recall_debug(f"injected {len(ids)} block(s): {ids}")
    from ..hygiene import usage
    from . import injected

    usage.record_entries(settings.data_dir, [c.entry for c in result.chosen])
    held = injected.earlier(settings, payload.session_id, result.chosen)
    text = result.render(earlier=held)
    sent = _capped(text)  # what the model gets: a block cut by the cap is not held
    fresh = [c for i, c in enumerate(result.chosen) if i not in held and c.text in sent]
    injected.remember(settings, payload.session_id, fresh)
    return text if text and text.strip() else None


def session_end(payload: HookPayload, settings: Settings) -> str | None:
    from ..distill import hook as distill_hook

    distill_hook.session_end(dict(payload.raw or {}), settings)
    return None


def _recall_debug(message: str) -> None:
    # debuglog echoes to stderr when AGD_RECALL_DEBUG is on, and always keeps the line in the log.
    debuglog.log(f"recall: {message}")


HANDLERS: dict[str, tuple[str, Callable[[HookPayload, Settings], str | None]]] = {
    # verb -> (hookEventName for the output, handler)
    "session-start": ("SessionStart", session_start),
    "prompt": ("UserPromptSubmit", prompt),
    "session-end": ("SessionEnd", session_end),
}


def render_output(event_name: str, context: str, notices: Sequence[str] = ()) -> str:
    """The hook JSON Claude Code reads: `hookSpecificOutput.additionalContext` for the model
    (within the cap) and `systemMessage` for the user; "" when there is neither."""
    payload: dict[str, Any] = {}
    if notices:
        message = "\n".join(f"agd-memory: {n}" for n in notices)
        if len(message) > MAX_NOTICE_CHARS:
            message = message[: MAX_NOTICE_CHARS - 1] + "…"
        payload["systemMessage"] = message
    if context:
        payload["hookSpecificOutput"] = {
            "hookEventName": event_name,
            "additionalContext": _capped(context),
        }
    return json.dumps(payload, ensure_ascii=False) if payload else ""


def _capped(context: str) -> str:
    if len(context) > MAX_CONTEXT_CHARS:
        cut = context.rfind("\n", 0, MAX_CONTEXT_CHARS - 80)
        cut = cut if cut > 0 else MAX_CONTEXT_CHARS - 80
        context = (
            context[:cut]
            + f"\n(agd-memory: the rest was cut to fit the hook limit; {TOC_TOOL} lists it)"
        )
    return context


STDIN_LIMIT = 16 * 1024 * 1024
"""Bytes of hook payload read at most: a prompt with a long paste is a few MiB; a stream
that does not end (a broken caller) must not grow the hook without bound."""


def read_stdin(stream, limit: int = STDIN_LIMIT) -> bytes:
    """The payload, or b"" (an empty payload, logged) when it is longer than `limit`."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        debuglog.log(f"hook: stdin longer than {limit} bytes; using an empty payload")
        return b""
    return data


def main(argv: Sequence[str]) -> int:
    """`agd-memory hook <event>`: read the payload on stdin, print hook JSON or nothing; always exit 0."""
    args = list(argv)
    if len(args) != 1 or args[0] not in HANDLERS:
        if args and args[0] in ("-h", "--help"):
            print(USAGE)
            return 0
        print(f"agd-memory hook: {USAGE}", file=sys.stderr)
        return 2
    verb = args[0]
    event_name, handler = HANDLERS[verb]
    output = ""
    take_notices()  # a fresh queue: main may run more than once in a process (tests)
    try:
        settings = Settings.load()
        if settings.distill_guard:
            # Inside the distiller's own `claude -p` child: every hook is a no-op, or
            # SessionEnd would start another distiller, and so on without end.
            return 0
        payload = parse_payload(read_stdin(sys.stdin.buffer))
        context = handler(payload, settings)
        output = render_output(event_name, context or "", take_notices())
    except KeyboardInterrupt:
        raise
    except (Exception, SystemExit) as exc:
        debuglog.log(f"hook {verb}: failed open: {type(exc).__name__}: {exc}")
        output = render_output(event_name, "", take_notices())  # the user still hears
    if output:
        # Bytes, UTF-8: Claude Code reads UTF-8 whatever the hook's locale says.
        data = (output + "\n").encode("utf-8")
        try:
            stream = getattr(sys.stdout, "buffer", None)
            if stream is None:
                sys.stdout.write(data.decode("utf-8"))
            else:
                sys.stdout.flush()
                stream.write(data)
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
    return 0
