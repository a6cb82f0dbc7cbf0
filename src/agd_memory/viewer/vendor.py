"""The viewer's two browser libraries when the plugin has no `node_modules`.

A plugin installed from git (or where npm is missing) has no `node_modules`, so on the
viewer's first start this fetches the exact tarballs pinned in the plugin's
`package-lock.json` (its `resolved` URL), checks each against the lock's `integrity`
(sha512) before opening it, and keeps only the one file the page loads, in
`<data>/viewer-vendor/`. A kept file is used again only while its sha256 (recorded beside
it) and the lock's version and integrity still match, else it is fetched again. The page
itself never leaves 127.0.0.1: the viewer serves these files like its own.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import json
import tarfile
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from agd import files
from agd.atomic import write_atomic
from agd.errors import UnreadableFile

LIBRARIES = {
    "cytoscape": "dist/cytoscape.min.js",
    "markdown-it": "dist/browser/markdown-it.umd.min.js",
}
"""npm package -> the one file of it the page loads (UMD builds that define a global)."""

FOLDER = "viewer-vendor"
RECORD = "vendor.json"
TIMEOUT_S = 20.0
MAX_TARBALL = 16 * files.MIB
MAX_FILE = 8 * files.MIB
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}


class FetchError(Exception):
    """Why one library could not be fetched (one line)."""


@dataclass(frozen=True)
class Pin:
    name: str
    version: str
    resolved: str
    integrity: str


def pins(lock: Path) -> dict[str, Pin]:
    """Our libraries as `package-lock.json` pins them; FetchError when the lock lacks one."""
    try:
        data = json.loads(files.read_text(lock, limit=files.MIB))
        packages = data["packages"]
        out = {}
        for name in LIBRARIES:
            entry = packages[f"node_modules/{name}"]
            out[name] = Pin(name, entry["version"], entry["resolved"], entry["integrity"])
        return out
    except (UnreadableFile, ValueError, KeyError, TypeError) as exc:
        raise FetchError(f"{lock} does not pin the viewer's libraries ({exc})") from None


def cached(data_dir: Path, lock: Path) -> dict[str, Path]:
    """The libraries already fetched for this lock and intact (sha256 re-checked)."""
    folder = data_dir / FOLDER
    try:
        record = json.loads(files.read_text(folder / RECORD, limit=files.MIB))
        wanted = pins(lock)
    except (UnreadableFile, ValueError, FetchError):
        return {}
    found = {}
    for name, pin in wanted.items():
        kept = record.get(name) if isinstance(record, dict) else None
        if not isinstance(kept, dict) or kept.get("integrity") != pin.integrity:
            continue
        path = folder / f"{name}-{pin.version}.js"
        try:
            body = files.read_bytes(path, limit=MAX_FILE)
        except UnreadableFile:
            continue
        if hashlib.sha256(body).hexdigest() == kept.get("sha256"):
            found[name] = path
    return found


def _check_url(url: str) -> None:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in LOCAL_HOSTS):
        return
    raise FetchError(f"refusing to fetch {url} (only https, or http on this machine)")


def _download(url: str) -> bytes:
    _check_url(url)
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as answer:  # noqa: S310 (checked above)
            body = answer.read(MAX_TARBALL + 1)
    except (OSError, ValueError) as exc:
        raise FetchError(f"could not download {url}: {getattr(exc, 'reason', exc)}") from None
    if len(body) > MAX_TARBALL:
        raise FetchError(f"{url} is larger than {MAX_TARBALL // files.MIB} MiB")
    return body


def _verify(pin: Pin, tarball: bytes) -> None:
    algorithm, _, expected = pin.integrity.partition("-")
    if algorithm != "sha512":
        raise FetchError(f"{pin.name}: the lock's integrity is not sha512 ({algorithm})")
    actual = base64.b64encode(hashlib.sha512(tarball).digest()).decode()
    if actual != expected:
        raise FetchError(
            f"{pin.name} {pin.version} from {pin.resolved} does not match the lock's integrity"
        )


def _extract(pin: Pin, tarball: bytes) -> bytes:
    member = f"package/{LIBRARIES[pin.name]}"
    try:
        with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as tar:
            info = tar.getmember(member)
            if not info.isfile() or info.size > MAX_FILE:
                raise FetchError(f"{pin.name}: {member} in the tarball is not a file we can use")
            handle = tar.extractfile(info)
            assert handle is not None
            return handle.read(MAX_FILE)
    except (KeyError, tarfile.TarError, gzip.BadGzipFile, EOFError, OSError) as exc:
        raise FetchError(f"{pin.name}: no {member} in its tarball ({exc})") from None


def fetch(data_dir: Path, lock: Path, names: list[str]) -> dict[str, Path]:
    """Fetch `names` as the lock pins them into `<data>/viewer-vendor/`; FetchError at the first failure.

    Returns name -> kept file. Each file and the record are written atomically, so an
    interrupted fetch leaves either the old state or the new one.
    """
    wanted = pins(lock)
    folder = data_dir / FOLDER
    try:
        record = json.loads(files.read_text(folder / RECORD, limit=files.MIB))
        record = record if isinstance(record, dict) else {}
    except (UnreadableFile, ValueError):
        record = {}
    done = {}
    for name in names:
        pin = wanted[name]
        tarball = _download(pin.resolved)
        _verify(pin, tarball)
        body = _extract(pin, tarball)
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            raise FetchError(f"{pin.name}: {LIBRARIES[name]} is not UTF-8 text") from None
        path = folder / f"{name}-{pin.version}.js"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            write_atomic(path, text)
            record[name] = {
                "version": pin.version,
                "integrity": pin.integrity,
                "sha256": hashlib.sha256(body).hexdigest(),
            }
            write_atomic(folder / RECORD, json.dumps(record, indent=2, sort_keys=True) + "\n")
        except OSError as exc:
            raise FetchError(f"could not write {path}: {files.os_reason(exc)}") from None
        done[name] = path
    return done
