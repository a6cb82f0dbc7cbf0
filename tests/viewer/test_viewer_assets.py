"""The viewer's libraries without `node_modules`: fetched as package-lock.json pins them.

A fake npm registry on 127.0.0.1 serves tarballs built here; the real registry is never
reached. The plugin folder of each test holds a lock naming those tarballs.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import tarfile
import threading
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from viewer_fixtures import Home

from agd_memory.settings import Settings
from agd_memory.viewer import assets, vendor

LIBS = {
    "cytoscape": ("3.35.0", "/* cytoscape stand-in */ window.cytoscape = function () {};\n"),
    "markdown-it": ("15.0.3", "/* markdown-it stand-in */ window.markdownit = function () {};\n"),
}


class Registry:
    """Tarballs by URL path, and every path asked for."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.asked: list[str] = []
        self.url = ""


@pytest.fixture
def registry() -> Iterator[Registry]:
    reg = Registry()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            reg.asked.append(self.path)
            body = reg.files.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args: object) -> None:
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    reg.url = f"http://127.0.0.1:{srv.server_address[1]}"
    threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield reg
    srv.shutdown()
    srv.server_close()


def tarball(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"package/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def publish(reg: Registry, plugin: Path, libs: dict[str, tuple[str, bytes]]) -> None:
    """Serve one tarball per library and write the plugin's lock pinning them."""
    packages: dict[str, object] = {"": {"name": "agd-memory-viewer"}}
    for name, (version, body) in libs.items():
        data = tarball({vendor.LIBRARIES[name]: body, "package.json": b"{}"})
        path = f"/{name}/-/{name}-{version}.tgz"
        reg.files[path] = data
        packages[f"node_modules/{name}"] = {
            "version": version,
            "resolved": reg.url + path,
            "integrity": integrity(data),
        }
    plugin.mkdir(parents=True, exist_ok=True)
    lock = {"lockfileVersion": 3, "packages": packages}
    (plugin / "package-lock.json").write_text(json.dumps(lock))


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch) -> Path:
    """A plugin folder without node_modules (and no checkout's node_modules to fall back to)."""
    monkeypatch.setattr(assets, "REPO_ROOT", tmp_path / "no-checkout")
    return tmp_path / "plugin"


def stand_ins() -> dict[str, tuple[str, bytes]]:
    return {name: (version, text.encode()) for name, (version, text) in LIBS.items()}


def test_first_view_fetches_the_pinned_files_into_the_data_folder(registry, plugin, tmp_path):
    publish(registry, plugin, stand_ins())
    data = tmp_path / "data"
    table = assets.build_table(plugin, data)
    assert assets.vendor_status(table) == {"cytoscape": True, "markdown_it": True}
    assert assets.vendor_notice(table) == ""
    served = table["/vendor/cytoscape.min.js"].path
    assert served == data / "viewer-vendor" / "cytoscape-3.35.0.js"
    assert served.read_text() == LIBS["cytoscape"][1]
    assert table["/vendor/markdown-it.min.js"].path.read_text() == LIBS["markdown-it"][1]
    assert sorted(registry.asked) == sorted(registry.files)
    # Later starts use the kept files: no request at all.
    again = assets.build_table(plugin, data)
    assert again["/vendor/cytoscape.min.js"].path == served
    assert len(registry.asked) == 2


def test_a_kept_file_that_changed_is_fetched_again(registry, plugin, tmp_path):
    publish(registry, plugin, stand_ins())
    data = tmp_path / "data"
    served = assets.build_table(plugin, data)["/vendor/cytoscape.min.js"].path
    served.write_text("window.cytoscape = 'tampered';\n")
    table = assets.build_table(plugin, data)
    assert table["/vendor/cytoscape.min.js"].path.read_text() == LIBS["cytoscape"][1]
    assert registry.asked.count("/cytoscape/-/cytoscape-3.35.0.tgz") == 2
    assert registry.asked.count("/markdown-it/-/markdown-it-15.0.3.tgz") == 1


def test_a_tarball_that_does_not_match_the_lock_is_never_unpacked(
    registry, plugin, tmp_path, capsys
):
    publish(registry, plugin, stand_ins())
    path = "/cytoscape/-/cytoscape-3.35.0.tgz"
    registry.files[path] = tarball({vendor.LIBRARIES["cytoscape"]: b"window.evil = 1;\n"})
    data = tmp_path / "data"
    table = assets.build_table(plugin, data)
    assert assets.vendor_status(table)["cytoscape"] is False
    notice = assets.vendor_notice(table)
    assert "does not match the lock's integrity" in notice and f"npm ci` in {plugin}" in notice
    assert not (data / "viewer-vendor" / "cytoscape-3.35.0.js").exists()
    err = capsys.readouterr().err.splitlines()
    assert f"agd-memory view: {notice}" in err


def test_an_unreachable_registry_is_one_notice_in_the_page_and_the_terminal(
    registry, plugin, tmp_path, monkeypatch, serve, capsys
):
    publish(registry, plugin, stand_ins())
    registry.files.clear()  # every tarball answers 404
    root = tmp_path / "home"
    data = tmp_path / "data"
    env = {"HOME": str(root), "CLAUDE_PLUGIN_DATA": str(data), "CLAUDE_PLUGIN_ROOT": str(plugin)}
    srv = serve(Home(root, root / "m.agd", root / "o.agd", root / "g.agd", Settings.load(env), env))
    with urllib.request.urlopen(f"{srv.origin}projects.json?token={srv.secret}", timeout=10) as answer:
        page = json.load(answer)
    assert page["vendor"] == {"cytoscape": False, "markdown_it": False}
    assert page["vendor_notice"].startswith(f"could not download {registry.url}/cytoscape/")
    assert "\n" not in page["vendor_notice"]
    assert f"agd-memory view: {page['vendor_notice']}" in capsys.readouterr().err.splitlines()


def test_only_https_or_this_machine(plugin, tmp_path):
    plugin.mkdir(parents=True)
    packages = {
        f"node_modules/{name}": {
            "version": version,
            "resolved": f"http://registry.example/{name}.tgz",
            "integrity": "sha512-x",
        }
        for name, (version, _) in LIBS.items()
    }
    (plugin / "package-lock.json").write_text(json.dumps({"packages": packages}))
    notice = assets.vendor_notice(assets.build_table(plugin, tmp_path / "data"))
    assert notice.startswith("refusing to fetch http://registry.example/cytoscape.tgz")


def test_the_shipped_lock_pins_both_libraries_on_the_npm_registry():
    pins = vendor.pins(Path(__file__).resolve().parents[2] / "package-lock.json")
    assert {p.name for p in pins.values()} == set(vendor.LIBRARIES)
    for pin in pins.values():
        assert pin.resolved == (
            f"https://registry.npmjs.org/{pin.name}/-/{pin.name}-{pin.version}.tgz"
        )
        assert pin.integrity.startswith("sha512-")
