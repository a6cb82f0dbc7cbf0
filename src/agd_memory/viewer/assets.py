"""The fixed list of files the server may send besides memory JSON.

The table is built once at start-up from the viewer's own `static/` folder and two
files of the plugin's `node_modules` (installed by `npm ci` from the pinned
`package-lock.json`). A request path is only ever a key into this table, never
joined to a folder, so `/../` and friends simply are not found.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

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
    "/vendor/cytoscape.min.js": "cytoscape/dist/cytoscape.min.js",
    "/vendor/markdown-it.min.js": "markdown-it/dist/browser/markdown-it.umd.min.js",
}
"""URL -> file under node_modules. Both are UMD builds that define a global."""


@dataclass(frozen=True)
class Asset:
    path: Path
    content_type: str


def node_modules_dir(plugin_root: Path | None) -> Path | None:
    """The first `node_modules` holding our libraries: the plugin root's, then the checkout's."""
    for root in (plugin_root, REPO_ROOT):
        if root is not None and (root / "node_modules" / "cytoscape").is_dir():
            return root / "node_modules"
    return None


def install_root(plugin_root: Path | None) -> Path:
    """Where `npm ci` must run to install the libraries (shown in the page when they are missing)."""
    return plugin_root if plugin_root is not None else REPO_ROOT


MISSING = STATIC_DIR / "vendor-missing.js"
"""Sent for a library that is not installed: a comment, so the page logs no error."""


def build_table(plugin_root: Path | None = None) -> dict[str, Asset]:
    table: dict[str, Asset] = {}
    for file in sorted(STATIC_DIR.iterdir()):
        kind = CONTENT_TYPES.get(file.suffix)
        if kind is not None and file.is_file():
            table["/" + file.name] = Asset(file, kind)
    if "/index.html" in table:
        table["/"] = table["/index.html"]
    modules = node_modules_dir(plugin_root)
    for url, rel in VENDOR.items():
        file = modules / rel if modules is not None else MISSING
        table[url] = Asset(file if file.is_file() else MISSING, CONTENT_TYPES[".js"])
    return table


def vendor_status(table: dict[str, Asset]) -> dict[str, bool]:
    def installed(url: str) -> bool:
        return url in table and table[url].path != MISSING

    return {
        "cytoscape": installed("/vendor/cytoscape.min.js"),
        "markdown_it": installed("/vendor/markdown-it.min.js"),
    }
