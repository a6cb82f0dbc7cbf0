"""`MemoryFile`: one layer's file — cached reads and the single write path.

Every change to a memory file goes through `MemoryFile.rewrite`: `save`, `delete`,
`rename` and `set_keys` (which change the parsed `Document`), and `merge --apply`,
`migrate --apply` and any bulk rewrite (which compute new text). It takes the lock
beside the *real* file (a symlinked memory file and its target share one lock),
refuses a read-only file, reads the current text inside the lock (so a plan made
before is recomputed, never replayed), keeps a `.bak` for bulk rewrites, replaces the
real file with `write_atomic` (the link stays a link), clears temporary files a
killed writer left, and refreshes the cache. A Document change is written back with
`agd.splice`: only the blocks that changed are re-serialised, every other byte (a
BOM, CRLF line ends, `ver=007`) stays. A crash at any instant leaves the old or the
new file; a failed check leaves the file untouched.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from agd import files, lock
from agd.atomic import remove_stale_temps, write_atomic
from agd.errors import AgdError
from agd.model import Block, Document
from agd.refs import cites

from .. import diskcache as cache
from ..errors import BlockNotFound, MemoryFileError, SaveRejected, UserError
from ..settings import Settings
from . import rules, write
from .citations import rewrite_refs
from .entry import Entry, entries_from_rows, rows_from_document
from .write import MANAGED_ATTRS, insert_in_section  # noqa: F401  (their old home)

_ENTRY_ID = re.compile(r"^@x-\S*\s.*\[#([^\]\s]+)\]\s*$", re.M)
"""The id of each entry's block-start line (read from a file that may not parse)."""

if TYPE_CHECKING:
    from ..paths import Layer

T = TypeVar("T")


# The results are NamedTuples, not dataclasses: this module is imported by every hook,
# and `dataclasses` costs a hook process ~8 ms to import.


class SaveResult(NamedTuple):
    id: str
    kind: str
    path: Path
    action: str
    """`added` or `updated`."""
    superseded: tuple[str, ...] = ()
    """Ids this save marked `status=superseded`."""
    refs: tuple[str, ...] = ()
    """The block's `refs` after the save."""
    ignored: tuple[str, ...] = ()
    """Ids given in refs/supersedes that are not in this file (dropped)."""
    message: str = ""
    """`added #id (x-kind) in memory.agd[, superseded #a, #b]` (the earlier plugin's line)."""


class DeleteResult(NamedTuple):
    id: str
    kind: str
    path: Path
    cited_by: tuple[str, ...] = ()
    """Ids of blocks that still cite the deleted one (refs, supersedes or `#id` in the body)."""
    message: str = ""


class RenameResult(NamedTuple):
    old: str
    new: str
    path: Path
    rewritten: tuple[str, ...] = ()
    """Ids of the other blocks whose references were rewritten."""
    message: str = ""


class MemoryFile:
    """One memory file. Cheap to create; reads are cached by (path, size, mtime, inode)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        layer: str = "project",
        settings: Settings | None = None,
        project: str | os.PathLike[str] | None = None,
    ) -> None:
        self.path = Path(path)
        self.layer = layer
        self.settings = settings if settings is not None else Settings()
        folder = project if project is not None else self.settings.project_cwd
        self.project = Path(os.path.expanduser(folder)) if folder else None
        """The working folder of the project this memory belongs to, whose repository a
        project or global entry's code citations are recorded against (`code=`): given by
        a caller that edits another project's memory (the viewer), else
        `AGD_MEMORY_PROJECT_CWD`; None: the current folder."""

    def __repr__(self) -> str:
        return f"MemoryFile({str(self.path)!r}, layer={self.layer!r})"

    @property
    def lock_path(self) -> Path:
        """`memory.agd.lock` beside the real file (so two symlinks to one file share it)."""
        return lock.locked_path(self.path)

    @property
    def real_path(self) -> Path:
        """The file a write replaces: a symlinked memory file stays a symlink."""
        return lock.real_path(self.path)

    @property
    def backup_path(self) -> Path:
        """`memory.agd.bak` beside the real file: the text before the last bulk rewrite. The
        team layer's file is in a repository, where a `.bak` would sit untracked beside it
        (and could be committed): its backup is in the data folder, named by the file."""
        real = self.real_path
        if self.layer == "team":
            import hashlib

            tag = hashlib.sha256(str(real).encode("utf-8", "surrogateescape")).hexdigest()[:16]
            return self.settings.data_dir / "backups" / f"team-{tag}-{real.name}.bak"
        return real.with_name(real.name + ".bak")

    @property
    def cache_dir(self) -> Path:
        return self.settings.data_dir / "cache"

    # -- reading -------------------------------------------------------------------

    def exists(self) -> bool:
        """True for a regular file; False when nothing is there. Any other stat failure (a
        path through a file, a name too long, no permission, a symlink loop) is a
        `MemoryFileError` naming the file."""
        try:
            mode = os.stat(self.path).st_mode
        except FileNotFoundError:
            return False
        except (OSError, ValueError) as exc:
            raise self._unreadable(exc) from None
        return stat.S_ISREG(mode)

    def _unreadable(self, exc: OSError | ValueError) -> MemoryFileError:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return MemoryFileError(
            f"cannot read memory file {self.path}: {reason}; check the path and its permissions",
            path=self.path,
            reason=reason,
        )

    def _key(self) -> cache.Key | None:
        """The file's cache key; None when it does not exist (other stat errors raise)."""
        try:
            return cache.file_key(self.path)
        except (OSError, ValueError) as exc:
            raise self._unreadable(exc) from None

    def document(self) -> Document:
        """The parsed file (an empty Document when it does not exist). Do not mutate it:
        it is shared with later calls until the file changes."""
        key = self._key()
        if key is None:
            return Document()
        loaded = cache.memo_get(key)
        if loaded is not None and loaded.document is not None:
            return loaded.document
        key, doc = self._parse_file()
        rows = rows_from_document(doc)
        if loaded is None:
            cache.write_rows(self.cache_dir, key, rows)
        cache.memo_put(cache.Loaded(key, rows, doc))
        return doc

    def entries(self) -> list[Entry]:
        """Every block with an id, in document order ([] when the file does not exist)."""
        loaded = self._load()
        if loaded is None:
            return []
        got = loaded.entries.get(self.layer)
        if got is None:
            got = loaded.entries[self.layer] = entries_from_rows(loaded.rows, self.layer, self.path)
        return got

    def entry(self, block_id: str) -> Entry | None:
        block_id = block_id.lstrip("#")
        return next((e for e in self.entries() if e.id == block_id), None)

    def _load(self) -> cache.Loaded | None:
        key = self._key()
        if key is None:
            return None
        loaded = cache.memo_get(key)
        if loaded is not None:
            return loaded
        rows = cache.read_rows(self.cache_dir, key)
        if rows is not None:
            loaded = cache.Loaded(key, rows)
        else:
            key, doc = self._parse_file()
            loaded = cache.Loaded(key, rows_from_document(doc), doc)
            cache.write_rows(self.cache_dir, key, loaded.rows)
        cache.memo_put(loaded)
        return loaded

    def _parse_file(self) -> tuple[cache.Key, Document]:
        key, data = self._read()
        return key, self._parse_text(data)

    def _read(self) -> tuple[cache.Key, bytes]:
        """The file's bytes and the cache key of exactly those bytes (one open, one fstat).

        Opened without blocking (a FIFO would otherwise wait for a writer forever) and read
        to at most `files.DEFAULT_LIMIT`, like every file the format library reads."""
        try:
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
            with open(fd, "rb") as fh:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode):
                    raise MemoryFileError(
                        f"memory file {self.path} is not a regular file; point it at a file",
                        path=self.path,
                        reason="not a regular file",
                    )
                data = fh.read(files.DEFAULT_LIMIT + 1)
            if len(data) > files.DEFAULT_LIMIT:
                raise MemoryFileError(
                    f"memory file {self.path} is larger than {files.DEFAULT_LIMIT // files.MIB} "
                    "MiB; split it into layers or remove old entries",
                    path=self.path,
                    reason="too large",
                )
        except FileNotFoundError:
            raise MemoryFileError(
                f"memory file {self.path} does not exist", path=self.path, reason="missing"
            ) from None
        except (OSError, ValueError) as exc:
            raise self._unreadable(exc) from None
        key = (
            os.path.realpath(self.path),
            st.st_size,
            st.st_mtime_ns,
            st.st_ctime_ns,
            st.st_ino,
            st.st_dev,
        )
        return key, data

    def _parse_text(self, data: bytes) -> Document:
        return self._parse_str(self._decode(data))

    def _decode(self, data: bytes) -> str:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MemoryFileError(
                f"memory file {self.path} is not UTF-8 (byte {exc.start}); re-save it as UTF-8"
            ) from None

    def _parse_str(self, text: str) -> Document:
        from agd.parser import parse  # imported on a cache miss only: hooks read the cache

        try:
            doc = parse(text)
        except AgdError as exc:
            conflict = rules.conflict_message(self.path, text, parsed=False)
            if conflict is not None:  # git's regions cut through fences
                raise MemoryFileError(conflict, path=self.path, reason="conflict") from None
            fix = self._parse_fix(text)
            raise MemoryFileError(
                f"memory file {self.path} does not parse: {exc}; {fix}",
                path=self.path,
                line=exc.line,
                reason="parse",
            ) from None
        conflict = rules.conflict_message(self.path, text)  # markers outside fenced bodies
        if conflict is not None:
            raise MemoryFileError(conflict, path=self.path, reason="conflict")
        return doc

    def _parse_fix(self, text: str) -> str:
        """What to do about a file that does not parse: fix the line; restoring the `.bak`
        is offered only when it holds every entry the file has (it may be older than
        later saves, which a restore would lose)."""
        scope = f" --scope {self.layer}" if self.layer in ("team", "global") else ""
        by_hand = (
            f"fix that line by hand (`agd validate {self.path}` shows it), or run "
            f"`agd-memory repair{scope} --apply` to keep every block that parses and set the "
            "rest aside"
        )
        bak = self.backup_path
        try:
            old = files.read_text(bak, files.DEFAULT_LIMIT)
        except AgdError:
            return by_hand  # no backup (or none readable)
        before = set(_ENTRY_ID.findall(old))
        lacking = [i for i in dict.fromkeys(_ENTRY_ID.findall(text)) if i not in before]
        if not lacking:
            return (
                f"fix that line, or restore {bak} (the text before the last bulk rewrite; "
                "edits made since are not in it)"
            )
        shown = ", ".join(f"#{i}" for i in lacking[:5]) + (" …" if len(lacking) > 5 else "")
        return (
            f"{by_hand}; do not restore {bak}: it is older than later writes and lacks "
            f"{len(lacking)} entr{'y' if len(lacking) == 1 else 'ies'} ({shown})"
        )

    # -- writing -------------------------------------------------------------------

    def save(
        self,
        kind: str,
        id: str,
        content: str,
        *,
        desc: str | None = None,
        refs: Iterable[str] | str | None = None,
        status: str | None = None,
        supersedes: Iterable[str] | str | None = None,
        keys: Iterable[str] | str | None = None,
        allow_secrets: bool = False,
    ) -> SaveResult:
        """Add or update the block `id` (see docs/ARCHITECTURE.md for every rule).

        `None` keeps the old value of desc, keys, refs, status and supersedes; `""` clears
        a desc or status and `[]` clears keys, refs or supersedes. `keys` are search terms
        recall matches as a field of their own (`rules.normalize_keys`). Without explicit refs, the
        old refs are kept and `#id` citations of existing blocks in the body are added.
        """
        entry = write.check_entry(
            kind,
            id,
            content,
            file=self.path,
            layer=self.layer,
            desc=desc,
            refs=refs,
            status=status,
            supersedes=supersedes,
            keys=keys,
            allow_secrets=allow_secrets,
        )
        today = rules.today(self.settings)
        code = write.code_record(self.path, self.layer, entry.desc, entry.body, self.project)

        def change(doc: Document) -> SaveResult:
            put = write.put(doc, entry, today=today, code=code)
            message = f"{put.action} #{entry.id} ({entry.kind}) in {self.path.name}"
            if put.superseded:
                message += ", superseded " + ", ".join(f"#{i}" for i in put.superseded)
            if put.ignored:
                message += "; ignored unknown ids " + ", ".join(f"#{i}" for i in put.ignored)
            return SaveResult(entry.id, entry.kind, self.path, put.action, *put[1:], message)

        where = entry.where
        return self.edit_document(change, where)[0]

    def set_keys(
        self,
        keys: Mapping[str, Iterable[str] | str],
        *,
        first: bool = False,
        after: bool = False,
    ) -> tuple[str, ...]:
        """Give each entry of `keys` (id -> search terms) its `keys` attribute, in one
        locked write. Nothing else changes, `updated` included: keys help recall find a
        fact, they are not a change of it. Unknown ids and non-entries are skipped. With
        `first` the terms go before the keys the entry has at the time of the write (keys
        learned from the user's own words), with `after` after them (a keys run: nothing
        saved meanwhile is lost); either way the last make room past `rules.MAX_KEYS`.
        Returns the ids written."""
        wanted = {}
        for block_id, value in keys.items():
            where = f"#{block_id} in {self.path}"
            wanted[block_id] = rules.normalize_keys(value, where)

        def change(doc: Document) -> tuple[str, ...]:
            done = []
            for pos, b in enumerate(doc.blocks):
                if b.id not in wanted or not b.kind.startswith("x-"):
                    continue
                if first or after:
                    had, new = rules.key_list(b.attrs.get("keys")), rules.key_list(wanted[b.id])
                    both = rules.merge_keys(new, had) if first else rules.merge_keys(had, new)
                    wanted[b.id] = rules.normalize_keys(both, str(self.path))
                attrs = {k: v for k, v in b.attrs.items() if k != "keys"}
                if wanted[b.id]:
                    attrs["keys"] = wanted[b.id]
                if attrs == b.attrs:
                    continue
                doc.blocks[pos] = Block(b.kind, b.content_type, b.value, attrs, b.id)
                done.append(b.id)
            return tuple(done)

        return self.edit_document(change, str(self.path), create=False)[0]

    def delete(self, id: str) -> DeleteResult:
        """Remove the block `id`; the result lists the blocks that still cite it."""
        block_id = id.strip().lstrip("#")

        def change(doc: Document) -> DeleteResult:
            pos = doc.index().get(block_id)
            if pos is None:
                raise BlockNotFound(
                    f"no block #{block_id} in {self.path}; `agd-memory toc` lists the ids",
                    block_id=block_id,
                    path=self.path,
                )
            block = doc.blocks[pos]
            _require_memory_block(block, self.path, "delete")
            del doc.blocks[pos]
            cited_by = tuple(b.id for b in doc.blocks if b.id and cites(b, block_id))
            message = f"deleted #{block_id} ({block.kind}) from {self.path.name}"
            if cited_by:
                message += "; still cited by " + ", ".join(f"#{i}" for i in cited_by)
            return DeleteResult(block_id, block.kind, self.path, cited_by, message)

        return self.edit_document(change, f"#{block_id} in {self.path}", create=False)[0]

    def rename(self, old: str, new: str) -> RenameResult:
        """Give block `old` the id `new` and rewrite every refs, supersedes, `@ref` and
        `#old` citation in the file."""
        old_id = old.strip().lstrip("#")
        rules.check_secrets({"new id": new}, f"the rename of #{old_id} in {self.path}")
        new_id = rules.check_id(new, f"the new name of #{old_id} in {self.path}")

        def change(doc: Document) -> RenameResult:
            index = doc.index()
            pos = index.get(old_id)
            if pos is None:
                raise BlockNotFound(
                    f"no block #{old_id} in {self.path}; `agd-memory toc` lists the ids",
                    block_id=old_id,
                    path=self.path,
                )
            _require_memory_block(doc.blocks[pos], self.path, "rename")
            if new_id in index and new_id != old_id:
                raise SaveRejected(
                    f"rename rejected: #{new_id} already exists in {self.path}; choose another id "
                    "or delete it first. Nothing was written."
                )
            rewritten = []
            for i, b in enumerate(doc.blocks):
                nb = rewrite_refs(b, old_id, new_id)
                if i == pos:
                    nb = Block(nb.kind, nb.content_type, nb.value, nb.attrs, new_id)
                elif nb is b:
                    continue
                elif b.id:
                    rewritten.append(b.id)
                doc.blocks[i] = nb
            message = f"renamed #{old_id} to #{new_id} in {self.path.name}"
            if rewritten:
                message += "; rewrote references in " + ", ".join(f"#{i}" for i in rewritten)
            return RenameResult(old_id, new_id, self.path, tuple(rewritten), message)

        return self.edit_document(change, f"#{old_id} in {self.path}", create=False)[0]

    def rewrite(
        self,
        compute: Callable[[str], tuple[str | None, T]],
        *,
        backup: bool = False,
    ) -> tuple[T, Path | None]:
        """Replace the file's text by `compute(current text)` under the write path's lock.

        `compute` gets the text as stored (BOM and line ends kept), read inside the lock,
        and returns (the new text, or None to change nothing; a result). With `backup`
        the old text is kept in `memory.agd.bak` first (bulk rewrites: merge, migrate,
        import). Returns (the result, the `.bak` written or None). The new text must
        parse; a missing file is a `MemoryFileError`.
        """

        def step(raw: str | None, key: cache.Key | None) -> tuple[str | None, Document | None, T]:
            if raw is None:
                raise MemoryFileError(f"memory file {self.path} does not exist; nothing to change")
            text, result = compute(raw)
            if text is None or text == raw:
                return None, None, result
            from agd.parser import parse

            try:
                return text, parse(text), result
            except AgdError as exc:
                raise MemoryFileError(
                    f"{self.path}: the new text would not parse ({exc}); nothing was written — "
                    "please report this"
                ) from None

        return self._locked(step, backup=backup)

    def edit_document(
        self,
        change: Callable[[Document], T],
        where: str,
        *,
        create: bool = True,
        backup: bool = False,
    ) -> tuple[T, Path | None]:
        """`change(doc)` edits a private copy of the file's Document in place (replacing
        blocks, never mutating them) and returns a result; what changed is spliced back over
        the file's text (other bytes kept) under the write path's lock. A missing or empty
        file starts from the scaffold when `create`, else is `BlockNotFound`. With `backup`
        the old text is kept in `memory.agd.bak` (bulk changes: import, consolidation).
        Returns (the result, the `.bak` written or None). `where` names the change in errors."""
        from agd.parser import parse
        from agd.splice import splice

        if create and self.layer == "team" and not self.settings.team_file and not self.exists():
            raise UserError(
                f"no team memory in this repository yet ({self.path}); run /agd-memory:team-init "
                "in Claude Code (in a shell: `agd-memory team init`), which creates it with its "
                "merge driver and keeps its lock file out of commits. Nothing was written."
            )

        def step(raw: str | None, key: cache.Key | None) -> tuple[str | None, Document | None, T]:
            if raw is None and not create:
                raise BlockNotFound(f"memory file {self.path} does not exist; nothing to change")
            old = self._document_of(key, raw) if raw is not None else Document()
            source = raw
            if not old.blocks and create:  # a missing or empty file is a new memory
                source = rules.scaffold(self.layer)
                old = parse(source)
            doc = Document(list(old.blocks))  # blocks are replaced, never mutated
            result = change(doc)
            if (
                source is raw
                and len(doc.blocks) == len(old.blocks)
                and all(a is b for a, b in zip(doc.blocks, old.blocks, strict=True))
            ):
                return None, None, result  # nothing changed: the file and its caches stay
            assert source is not None
            text = splice(source, old, doc)
            try:
                check = parse(text)
            except AgdError as exc:  # unreachable unless the serializer has a bug
                raise SaveRejected(
                    f"save rejected: {where} would not read back ({exc}). Nothing was written."
                ) from None
            if check != doc:
                raise SaveRejected(
                    f"save rejected: {where} would not read back the same. Nothing was written."
                )
            return text, check, result

        return self._locked(step, backup=backup)

    def _locked(
        self,
        step: Callable[[str | None, cache.Key | None], tuple[str | None, Document | None, T]],
        *,
        backup: bool,
    ) -> tuple[T, Path | None]:
        """The transaction: lock the real file, refuse a read-only one, read, `step`, write."""
        try:
            with lock.exclusive(self.lock_path):
                raw: str | None = None
                key: cache.Key | None = None
                if self.exists():
                    self._check_writable()
                    key, data = self._read()
                    raw = self._decode(data)
                elif os.path.exists(self.path):  # a folder, FIFO or device
                    raise MemoryFileError(
                        f"memory file {self.path} is not a regular file; point it at a file. "
                        "Nothing was written."
                    )
                text, doc, result = step(raw, key)
                if text is None or doc is None:
                    return result, None
                real = self.real_path
                bak = self.backup_path if backup and raw is not None else None
                try:
                    if bak is not None and raw is not None:  # as private as the file
                        bak.parent.mkdir(parents=True, exist_ok=True)
                        write_atomic(bak, raw, mode=stat.S_IMODE(os.stat(real).st_mode))
                    write_atomic(real, text)
                except OSError as exc:
                    raise MemoryFileError(
                        f"cannot write memory file {self.path}: {exc.strerror or exc}; "
                        "check that the file and its folder are writable. Nothing was written."
                    ) from None
                remove_stale_temps(real)
                self._remember(doc)
                return result, bak
        except lock.LockError as exc:
            raise MemoryFileError(str(exc)) from None

    def _document_of(self, key: cache.Key | None, raw: str) -> Document:
        """The Document of `raw` (read with `key`): the memoised one when the file is
        unchanged (an MCP server or the distiller saving several blocks parses once)."""
        loaded = cache.memo_get(key) if key is not None else None
        if loaded is not None and loaded.document is not None:
            return loaded.document
        return self._parse_str(raw)

    def _check_writable(self) -> None:
        """Refuse a read-only file (called after `exists()` found a regular file)."""
        from agd.files import read_only

        if read_only(self.path):
            raise MemoryFileError(
                f"memory file {self.path} is read-only; make it writable (chmod u+w) to change "
                "it. Nothing was written."
            )

    def _remember(self, doc: Document) -> None:
        key = cache.file_key(self.path)
        if key is None:
            return
        rows = rows_from_document(doc)
        cache.memo_put(cache.Loaded(key, rows, doc))
        cache.write_rows(self.cache_dir, key, rows)


def open_files(layers: Iterable[Layer], settings: Settings) -> list[MemoryFile]:
    """`MemoryFile`s for `paths.Layer`s, in order."""
    return [MemoryFile(layer.path, layer=layer.name, settings=settings) for layer in layers]


# -- helpers -----------------------------------------------------------------------------


def _require_memory_block(block: Block, path: Path, verb: str) -> None:
    if not block.kind.startswith("x-"):
        raise UserError(
            f"cannot {verb} #{block.id} in {path}: it is a `{block.kind}` block, not a memory "
            "entry; edit the file by hand if you mean it"
        )
