"""The graph view's labels on the bundled example memory, in headless Chromium: every node's
label box lies inside the canvas and overlaps no other; a long id is shortened with an
ellipsis and its full text is shown on hover."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import test_viewer_browser as browser_tests
from viewer_fixtures import Home

REPO = Path(__file__).resolve().parents[2]
LONG_ID = "decision-the-nightly-export-streams-its-csv-file-to-object-storage-in-parts"

pytestmark = browser_tests.pytestmark
libraries = browser_tests.libraries
browser = browser_tests.browser
open_page = browser_tests.open_page


@pytest.fixture
def example_home(home: Home) -> Home:
    """The viewer tests' home with the bundled example as its project and global memory."""
    shutil.copyfile(REPO / "examples" / "memory.agd", home.project)
    shutil.copyfile(REPO / "examples" / "global.agd", home.global_)
    # One entry with a very long id, citing another, to show how a long label is drawn.
    with home.project.open("a", encoding="utf-8") as f:
        f.write(
            f'\n@x-project desc="a long id" refs="#todo-export-queue" [#{LONG_ID}]\n~~~\nParts.\n~~~\n'
        )
    return home


LABEL_BOXES = """() => {
    const cy = window.agdViewerGraph();
    const boxes = cy.nodes(':visible').map((n) => {
        const b = n.renderedBoundingBox({includeNodes: false, includeEdges: false, includeLabels: true});
        return {id: n.id(), label: n.style('label'), x1: b.x1, y1: b.y1, x2: b.x2, y2: b.y2};
    });
    return {boxes, width: cy.width(), height: cy.height()};
}"""


def open_graph(open_page, home: Home, width: int = 1400):
    page, watch = open_page(home)
    page.set_viewport_size({"width": width, "height": 900})
    page.click("[data-view=graph]")
    page.wait_for_function("() => window.agdViewerGraph && window.agdViewerGraph() !== null")
    return page


@pytest.mark.parametrize("width", [1400, 900])
def test_graph_labels_do_not_overlap_and_stay_inside(open_page, example_home: Home, width: int):
    page = open_graph(open_page, example_home, width)
    page.wait_for_timeout(100)
    browser_tests.shot(page, f"graph-example-{width}")
    got = page.evaluate(LABEL_BOXES)
    boxes = got["boxes"]
    assert len(boxes) == 16  # 14 example entries, the superseded one too, and the long one
    for b in boxes:
        assert b["x1"] >= 0 and b["y1"] >= 0, b
        assert b["x2"] <= got["width"] and b["y2"] <= got["height"], (
            b,
            got["width"],
            got["height"],
        )
    overlaps = [
        (a["id"], b["id"])
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if a["x1"] < b["x2"] and b["x1"] < a["x2"] and a["y1"] < b["y2"] and b["y1"] < a["y2"]
    ]
    assert overlaps == []


def test_a_long_label_is_shortened_and_shown_whole_on_hover(open_page, example_home: Home):
    page = open_graph(open_page, example_home)
    uid = f"project:{LONG_ID}"
    label = page.evaluate(
        "(uid) => window.agdViewerGraph().getElementById(uid).style('label')", uid
    )
    assert label.endswith("…") and len(label) < len(LONG_ID)
    assert LONG_ID.startswith(label[:-1])
    point = browser_tests.node_point(page, uid)
    page.mouse.move(point["x"], point["y"])
    tip = page.locator("#graph-tip")
    tip.wait_for(state="visible")
    assert tip.text_content() == f"#{LONG_ID}"
    page.mouse.move(5, 880)
    tip.wait_for(state="hidden")
