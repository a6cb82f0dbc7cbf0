"""Code citations of an entry: found in its text at write time, recorded in `code=`.

What counts as a citation is deliberately narrow, so that prose never turns into one:
a path with a `/` or a bare file name (`pdf.py`), optionally with `:120` or `:120-140`,
and a `name()` symbol. Each is recorded only when it resolves in the repository at
write time (the path exists, a bare name is exactly one tracked file, the symbol is in
a cited file or defined in exactly one tracked file). The record is one attribute:

    code="src/billing/pdf.py 1f3a09bc; src/billing/pdf.py:120-140 77d0; render_invoice() src/billing/pdf.py"

A path (or range) is followed by its fingerprint: up to `SAMPLE` 16-bit hashes of its
distinct non-trivial lines, the ones whose CRC-32 is smallest (a small uniform sample,
so the share still found later estimates how much of the text is left); a symbol is
followed by the file it was found in.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from agd.errors import AgdError
from agd.files import MIB, read_text

ATTR = "code"
"""The entry attribute holding the record."""
SAMPLE = 8
"""Line hashes kept per cited file or range."""
MAX_CITATIONS = 12
"""At most this many citations are recorded per entry."""
FILE_LIMIT = 4 * MIB
"""A cited file larger than this is not fingerprinted (nor checked)."""
MIN_LINE = 8
"""Lines shorter than this (after collapsing spaces) are too common to fingerprint."""
GIT_TIMEOUT = 10.0

_PATH = re.compile(
    r"(?<![\w./@:~-])"  # not inside a URL, a word or a longer path
    r"((?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z][\w]{0,7})"  # a file name with an extension
    r"(?::(\d{1,6})(?:-(\d{1,6}))?)?"  # :120 or :120-140
    r"(?![\w/(])"
)
_SYMBOL = re.compile(r"(?<![\w.])([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)\(\)")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+")


class Citation(NamedTuple):
    """One recorded citation: `path` relative to the repository root (a symbol's file),
    `start`/`end` a 1-based line range (0 for the whole file), `symbol` or ""."""

    path: str
    start: int = 0
    end: int = 0
    symbol: str = ""
    fingerprint: str = ""

    @property
    def label(self) -> str:
        if self.symbol:
            return f"{self.symbol}()"
        if not self.start:
            return self.path
        return f"{self.path}:{self.start}" + (f"-{self.end}" if self.end != self.start else "")

    def render(self) -> str:
        if self.symbol:
            return f"{self.symbol}() {self.path}"
        return f"{self.label} {self.fingerprint or '-'}"


def format_record(citations: Iterable[Citation]) -> str:
    return "; ".join(c.render() for c in citations)


def parse_record(value: object) -> list[Citation]:
    """The citations of a `code=` value; malformed items, and paths that would leave the
    repository (`relative_inside`), are skipped, never raised."""
    out: list[Citation] = []
    for item in str(value or "").split(";"):
        parts = item.split()
        if len(parts) != 2:
            continue
        head, tail = parts
        if head.endswith("()"):
            if relative_inside(tail):
                out.append(Citation(tail, symbol=head[:-2]))
            continue
        m = re.fullmatch(r"(.+?)(?::(\d+)(?:-(\d+))?)?", head)
        if not m or not relative_inside(m.group(1)):
            continue
        start = int(m.group(2) or 0)
        end = int(m.group(3) or start)
        out.append(Citation(m.group(1), start, end, fingerprint="" if tail == "-" else tail))
    return out


def relative_inside(path: str) -> bool:
    """A cited path is relative and stays below the repository root: not absolute, no `..`,
    no control character (a committed file's `code=` is untrusted input)."""
    if not path or path.startswith(("/", "\\", "~")) or re.search(r"[\x00-\x1f]", path):
        return False
    return ".." not in re.split(r"[/\\]", path) and not re.match(r"^[A-Za-z]:", path)


def within(root: Path, path: str) -> bool:
    """`root / path` is a worktree file: no symbolic link leads outside `root` or into a
    `.git` folder (`paths.worktree_escape`)."""
    from ..paths import worktree_escape

    return not worktree_escape(root, root / path)


# -- fingerprints ------------------------------------------------------------------


def line_hashes(lines: Iterable[str]) -> set[int]:
    """CRC-32 of each distinct non-trivial line, spaces collapsed (reindenting is no change)."""
    out = set()
    for line in lines:
        norm = " ".join(line.split())
        if len(norm) >= MIN_LINE:
            out.add(zlib.crc32(norm.encode("utf-8", "surrogatepass")))
    return out


def fingerprint(lines: list[str]) -> str:
    """The `SAMPLE` smallest line hashes, 4 hex digits each ("" when no line is non-trivial)."""
    return "".join(f"{h >> 16:04x}" for h in sorted(line_hashes(lines))[:SAMPLE])


def sample_kept(fp: str, lines: list[str]) -> tuple[int, int]:
    """(sampled lines still present in `lines`, sampled lines)."""
    wanted = [int(fp[i : i + 4], 16) for i in range(0, len(fp) - 3, 4)]
    have = {h >> 16 for h in line_hashes(lines)}
    return sum(1 for w in wanted if w in have), len(wanted)


def read_lines(path: Path) -> list[str] | None:
    """The lines of a cited file, or None when it is missing, unreadable, binary or too big."""
    try:
        text = read_text(path, FILE_LIMIT)
    except (AgdError, OSError, ValueError):
        return None
    if "\x00" in text:
        return None
    return text.splitlines()


# -- extraction --------------------------------------------------------------------


class Repository:
    """The repository a memory's citations are relative to; the tracked file list is
    asked of git once, only when a bare name or a symbol needs it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._tracked: list[str] | None = None

    def tracked(self) -> list[str]:
        if self._tracked is None:
            out = _git(self.root, "ls-files", "-z")
            self._tracked = [p for p in out.split("\0") if p] if out else []
        return self._tracked

    def resolve(self, name: str) -> str | None:
        """`name` as a path relative to the root: as given, else the one tracked file
        whose path ends with it; None when missing or ambiguous."""
        name = name.removeprefix("./")
        if ".." in Path(name).parts or name.startswith("/"):
            return None
        if (self.root / name).is_file():
            return name
        suffix = "/" + name
        hits = [p for p in self.tracked() if p.endswith(suffix)]
        return hits[0] if len(hits) == 1 else None

    def defining_file(self, symbol: str) -> str | None:
        """The one tracked file defining `symbol` (`def`/`class`/`function`/... NAME)."""
        name = re.escape(symbol.rsplit(".", 1)[-1])
        pattern = rf"\b(def|class|function|func|fn|interface|struct|type|const|let|var)\s+{name}\b"
        out = _git(self.root, "grep", "-l", "-I", "-E", "-e", pattern)
        files = [p for p in (out or "").splitlines() if p]
        return files[0] if len(files) == 1 else None


def _git(root: Path, *args: str) -> str | None:
    import subprocess  # only when an entry is written: the hooks never import it here

    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode not in (0, 1):
        return None
    return done.stdout[: 16 * MIB].decode("utf-8", "replace")


def has_word(lines: list[str], symbol: str) -> bool:
    word = re.compile(rf"(?<![\w]){re.escape(symbol.rsplit('.', 1)[-1])}(?!\w)")
    return any(word.search(line) for line in lines)


def extract(text: str, repo: Repository) -> list[Citation]:
    """The citations in `text` that resolve in `repo`, each with its fingerprint."""
    text = _URL.sub(" ", text)
    found: dict[str, Citation] = {}
    lines_of: dict[str, list[str] | None] = {}

    def lines(path: str) -> list[str] | None:
        if path not in lines_of:
            lines_of[path] = read_lines(repo.root / path)
        return lines_of[path]

    for m in _PATH.finditer(text):
        if len(found) >= MAX_CITATIONS:
            break
        name, a, b = m.group(1), m.group(2), m.group(3)
        if name.endswith(".") or name[0] == ".":
            continue
        path = repo.resolve(name)
        if path is None:
            continue
        body = lines(path)
        if body is None:
            continue
        start = int(a) if a else 0
        end = int(b) if b else start
        if start and (end < start or start > len(body)):
            continue
        end = min(end, len(body))
        part = body[start - 1 : end] if start else body
        c = Citation(path, start, end, fingerprint=fingerprint(part))
        found.setdefault(c.label, c)
    cited = [c.path for c in found.values()]
    for m in _SYMBOL.finditer(text):
        if len(found) >= MAX_CITATIONS:
            break
        symbol = m.group(1)
        home = next((p for p in cited if has_word(lines(p) or [], symbol)), None)
        home = home or repo.defining_file(symbol)
        if home:
            found.setdefault(f"{symbol}()", Citation(home, symbol=symbol))
    return list(found.values())


def record(text: str, root: Path | None) -> str:
    """The `code=` value for an entry whose text is `text` ("" when it cites nothing)."""
    if root is None:
        return ""
    return format_record(extract(text, Repository(root)))


def root_for(memory: Path, layer: str, project: Path | None = None) -> Path | None:
    """The repository an entry of `memory` cites code in: the team file's own repository,
    else the one holding `project`, the working folder of the memory's project (the
    viewer, which shows every project, passes it), else the one holding the current
    folder (the project's, for a hook, the MCP server and the distiller, which run there)."""
    import os

    from ..paths import repo_root

    if layer == "team":
        return repo_root(Path(os.path.abspath(memory)).parent)
    try:
        return repo_root(Path(os.path.abspath(project)) if project is not None else Path.cwd())
    except OSError:
        return None
