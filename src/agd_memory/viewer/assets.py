"""The fixed list of files the server may send besides memory JSON.

The table is built once at start-up from the viewer's own `static/` folder and two
library files: from the plugin's `node_modules` (installed by `npm ci`, or by Claude Code
itself, from the pinned `package-lock.json`), else fetched once into the data folder by
`vendor` from the versions that lock pins. A request path is only ever a key into this table, never
joined to a folder, so `/../` and friends simply are not found.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from . import vendor

STATIC_DIR = Path(__file__).resolve().parent / "static"
REPO_ROOT = Path(__file__).resolve().parents[3]
"""The checkout (and plugin root) when running from source: `<root>/src/agd_memory/viewer`."""

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}

VENDOR = {
    f"/vendor/{url}": f"{package}/{file}"
    for url, (package, file) in zip(
        ("cytoscape.min.js", "markdown-it.min.js"), vendor.LIBRARIES.items(), strict=True
    )
}
"""URL -> file under node_modules (`<package>/<file>`). Both are UMD builds that define a global."""


@dataclass(frozen=True)
class Asset:
    path: Path
    content_type: str
    notice: str = ""
    """For a library that is missing: what the user can do (shown in the page)."""


def node_modules_dir(plugin_root: Path | None) -> Path | None:
    """The first `node_modules` holding our libraries: the plugin root's, then the checkout's."""
    for root in (plugin_root, REPO_ROOT):
        if root is not None and (root / "node_modules" / "cytoscape").is_dir():
            return root / "node_modules"
    return None


def install_root(plugin_root: Path | None) -> Path:
    """The plugin folder whose `package-lock.json` pins the libraries (and where `npm ci` runs)."""
    return plugin_root if plugin_root is not None else REPO_ROOT


MISSING = STATIC_DIR / "vendor-missing.js"
"""Sent for a library that is not installed: a comment, so the page logs no error."""


def _libraries(plugin_root: Path | None, data_dir: Path | None) -> tuple[dict[str, Path], str]:
    """package -> file for each library found or fetched, and a notice when one is missing."""
    found: dict[str, Path] = {}
    modules = node_modules_dir(plugin_root)
    for package, rel in vendor.LIBRARIES.items():
        if modules is not None and (modules / package / rel).is_file():
            found[package] = modules / package / rel
    missing = [p for p in vendor.LIBRARIES if p not in found]
    if not missing or data_dir is None:
        return found, ""
    lock = install_root(plugin_root) / "package-lock.json"
    found.update(vendor.cached(data_dir, lock))
    missing = [p for p in missing if p not in found]
    if not missing:
        return found, ""
    print(
        f"agd-memory view: fetching {', '.join(missing)} (once) from the npm registry",
        file=sys.stderr,
    )
    try:
        found.update(vendor.fetch(data_dir, lock, missing))
        return found, ""
    except vendor.FetchError as exc:
        notice = (
            f"{exc}. The graph and Markdown rendering are off; check the network and start "
            f"`agd-memory view` again, or run `npm ci` in {install_root(plugin_root)}."
        )
        print(f"agd-memory view: {notice}", file=sys.stderr)
        return found, notice


def build_table(plugin_root: Path | None = None, data_dir: Path | None = None) -> dict[str, Asset]:
    """The files the server may send; with `data_dir`, missing libraries are fetched into it."""
    table: dict[str, Asset] = {}
    for file in sorted(STATIC_DIR.iterdir()):
        kind = CONTENT_TYPES.get(file.suffix)
        if kind is not None and file.is_file():
            table["/" + file.name] = Asset(file, kind)
    if "/index.html" in table:
        table["/"] = table["/index.html"]
    found, notice = _libraries(plugin_root, data_dir)
    for url, rel in VENDOR.items():
        path = found.get(rel.partition("/")[0])
        table[url] = (
            Asset(path, CONTENT_TYPES[".js"])
            if path
            else Asset(MISSING, CONTENT_TYPES[".js"], notice)
        )
    return table


def vendor_status(table: dict[str, Asset]) -> dict[str, bool]:
    def installed(url: str) -> bool:
        return url in table and table[url].path != MISSING

    return {
        "cytoscape": installed("/vendor/cytoscape.min.js"),
        "markdown_it": installed("/vendor/markdown-it.min.js"),
    }


def vendor_notice(table: dict[str, Asset]) -> str:
    """Why the libraries are missing and what to do, when a fetch failed; else ''."""
    return next((asset.notice for asset in table.values() if asset.notice), "")
