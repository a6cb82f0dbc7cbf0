"""The full page in headless Chromium with no `node_modules` anywhere: the viewer fetches
the pinned libraries from a registry on 127.0.0.1 on its first start, and the graph renders.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import test_viewer_assets
import test_viewer_browser
from test_viewer_assets import publish
from test_viewer_browser import CHROMIUM, row
from viewer_fixtures import Home

from agd_memory.viewer import assets, vendor

# The fixtures of the two modules this test joins: the fake registry, and the page.
registry = test_viewer_assets.registry
browser = test_viewer_browser.browser
libraries = test_viewer_browser.libraries
open_page = test_viewer_browser.open_page

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium"),
]


def test_graph_and_markdown_render_from_fetched_libraries(
    open_page, home: Home, registry, tmp_path: Path, monkeypatch
):
    modules = assets.node_modules_dir(None)
    assert (
        modules is not None
    )  # the `libraries` fixture made sure; the tarballs are built from them
    real = {
        name: (version, (modules / name / vendor.LIBRARIES[name]).read_bytes())
        for name, version in (("cytoscape", "3.35.0"), ("markdown-it", "15.0.3"))
    }
    checkout = tmp_path / "fresh-install"
    publish(registry, checkout, real)
    monkeypatch.setattr(assets, "REPO_ROOT", checkout)  # a plugin folder with no node_modules
    page, watch = open_page(home)
    assert len(registry.asked) == 2
    assert (home.settings.data_dir / "viewer-vendor" / "cytoscape-3.35.0.js").is_file()
    tests = row(page, "project:feedback-tests")
    tests.locator(".row-main").click()
    assert tests.locator(".md").count() == 1 and tests.locator(".plain-body").count() == 0
    page.click("[data-view=graph]")
    page.wait_for_function("() => window.agdViewerGraph && window.agdViewerGraph() !== null")
    assert page.evaluate("window.agdViewerGraph().nodes().length") == 48
    assert page.locator("#graph-missing").is_hidden()
    assert all(url.startswith(watch.origin) for url in watch.requests)
