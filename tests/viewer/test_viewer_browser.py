"""The page in a real headless Chromium (Debian's), driven by Playwright.

Every test routes all of the page's requests: one to any other origin than the
viewer's fails the test (and is aborted, so nothing leaves the machine). Console
errors (a CSP violation is one) and page errors fail the test too. Screenshots of
the views are written to `test-artifacts/viewer/`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from viewer_fixtures import XSS_DESC, Home

from agd_memory.viewer import assets

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "viewer"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="needs Debian's chromium: apt-get install chromium"
    ),
]


@pytest.fixture(scope="module")
def libraries() -> None:
    """The page's libraries must be installed for these tests: CI runs `npm ci` (scripts/test)."""
    if assets.node_modules_dir(None) is None:
        pytest.fail(f"cytoscape and markdown-it are missing: run `npm ci` in {assets.REPO_ROOT}")


@pytest.fixture(scope="module")
def browser(libraries):
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="needs playwright: pip install playwright"
    )
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        yield chromium
        chromium.close()


@dataclass
class Watch:
    origin: str
    requests: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)


@pytest.fixture
def open_page(browser, serve) -> Iterator:
    """open_page(home, **server_kw) -> (page, watch): the viewer loaded and first-rendered."""
    contexts = []
    watches: list[Watch] = []

    def open_(home: Home, *, path: str = "/", **kw):
        srv = serve(home, **kw)
        watch = Watch(srv.origin.rstrip("/"))
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        contexts.append(context)

        def route(r):
            url = r.request.url
            watch.requests.append(url)
            if url.startswith(watch.origin + "/"):
                r.continue_()
            else:
                watch.foreign.append(url)
                r.abort()

        context.route("**/*", route)
        page = context.new_page()
        page.on("console", lambda m: m.type == "error" and watch.errors.append(m.text))
        page.on("pageerror", lambda e: watch.errors.append(str(e)))
        page.on("dialog", lambda d: (watch.dialogs.append(d.message), d.dismiss()))
        where, hash_, fragment = path.partition("#")
        token = ("&" if "?" in where else "?") + f"token={srv.secret}"
        page.goto(watch.origin + where + token + hash_ + fragment)
        page.wait_for_selector("body[data-ready=true]", timeout=15_000)
        watches.append(watch)
        return page, watch

    yield open_
    for context in contexts:
        context.close()
    for watch in watches:
        assert watch.foreign == [], f"requests to other hosts: {watch.foreign}"
        assert watch.dialogs == [], f"dialogs opened: {watch.dialogs}"
    for watch in watches:
        assert watch.errors == [], f"console or page errors: {watch.errors}"


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def row(page, uid: str):
    return page.locator(f'article.row[data-uid="{uid}"]')


def in_viewport(page, locator) -> bool:
    box = locator.bounding_box()
    height = page.viewport_size["height"]
    return box is not None and box["y"] >= 0 and box["y"] + min(box["height"], 60) <= height


def scrolled_into_view(page, locator, within_s: float = 5.0) -> bool:
    """Whether `locator` comes into view within `within_s` (a loaded machine paints late)."""
    start = time.monotonic()
    while not in_viewport(page, locator) and time.monotonic() - start < within_s:
        page.wait_for_timeout(50)
    return in_viewport(page, locator)


# -- read view ----------------------------------------------------------------------


def test_read_view_shows_both_layers(open_page, home: Home):
    page, watch = open_page(home)
    assert page.locator("#title").text_content() == "Harbor shop memory"
    assert row(page, "project:decision-invoices").count() == 1
    assert row(page, "global:pref-no-emoji").count() == 1
    assert row(page, "global:pref-no-emoji").locator(".badge.layer-global").count() == 1
    decision = row(page, "project:decision-invoices")
    assert decision.locator(".chip.kind").text_content() == "project"
    assert decision.locator(".bid").text_content() == "#decision-invoices"
    assert (
        decision.locator(".desc").text_content()
        == "invoice numbers come from a gapless counter table"
    )
    assert "2026-09-10" in decision.locator(".chip.date").text_content()
    assert decision.locator(".chip.status").text_content() == "open"
    assert decision.locator(".counts").text_content() == "→ 2← 2"
    # Superseded blocks are marked, even when only their successor says so.
    assert "superseded" in row(page, "project:old-invoices").get_attribute("class")
    groups = page.locator(".group-head h2").all_text_contents()
    assert groups == ["User", "Feedback", "Project", "Reference"]
    assert page.locator("#layer-filter button").all_text_contents() == [
        "project · 46",
        "global · 2",
    ]
    # The page and its libraries came from the viewer itself.
    assert any(u.endswith("/vendor/markdown-it.min.js") for u in watch.requests)


def test_expanding_renders_markdown_and_refs_navigate(open_page, home: Home):
    page, _ = open_page(home)
    tests = row(page, "project:feedback-tests")
    tests.locator(".row-main").click()
    body = tests.locator(".detail .md")
    assert body.locator("code").first.text_content() == "make db-up"
    assert body.locator("li").count() == 2
    # `#decision-invoices` written in prose is a link; so is the refs list, across layers.
    assert tests.locator(".detail-side a.ref-link").all_text_contents() == [
        "#decision-invoices",
        "#pref-no-emoji",
    ]
    shot(page, "read")
    tests.locator(".md a.ref-link").click()
    target = row(page, "project:decision-invoices")
    assert "open" in target.get_attribute("class")
    assert scrolled_into_view(page, target)
    assert "#no-such-block" in target.locator(".ref-link.missing").text_content()
    target.locator(".detail-side a.ref-link", has_text="#user-lena").click()
    assert scrolled_into_view(page, row(page, "project:user-lena"))


def test_expand_all_and_collapse_all(open_page, home: Home):
    page, _ = open_page(home)
    page.click("#expand-all")
    assert page.locator("article.row.open").count() == 48
    page.click("#collapse-all")
    assert page.locator("article.row.open").count() == 0


def test_group_by_section_and_layer_filter(open_page, home: Home):
    page, _ = open_page(home)
    page.select_option("#group-by", "section")
    assert page.locator(".group-head h2").all_text_contents() == [
        "User",
        "Feedback",
        "Reference",
        "Project",
        "Feedback",
    ]
    page.click("#layer-filter button.layer-global")
    assert row(page, "global:pref-no-emoji").count() == 0
    assert row(page, "project:user-lena").count() == 1


def test_xss_desc_is_text_and_runs_nothing(open_page, home: Home):
    page, _ = open_page(home)
    xss = row(page, "project:xss-desc")
    assert xss.locator(".desc").text_content() == XSS_DESC
    xss.locator(".row-main").click()
    md = xss.locator(".md")
    assert "<script>window.__pwned = 1</script>" in md.text_content()
    assert md.locator("script, img, iframe").count() == 0
    assert page.locator("main img").count() == 0
    assert md.locator('a[href^="javascript:"]').count() == 0
    page.keyboard.press("Control+k")
    page.keyboard.type("onerror")
    assert (
        page.locator("#palette-results li").first.locator(".palette-desc").text_content()
        == XSS_DESC
    )
    page.wait_for_timeout(300)
    assert page.evaluate("window.__pwned") is None


# -- search -------------------------------------------------------------------------


def test_search_finds_by_body_word_and_enter_scrolls(open_page, home: Home):
    page, _ = open_page(home)
    target = row(page, "project:decision-invoices")
    assert not in_viewport(page, target), "the fixture puts the target below the first screen"
    page.keyboard.press("Control+k")
    assert page.locator("#palette").is_visible()
    page.keyboard.type("zanzibar")
    results = page.locator("#palette-results li")
    assert results.count() == 1
    assert results.first.locator(".bid").text_content() == "#decision-invoices"
    assert results.first.locator("mark").first.text_content() == "zanzibar"
    shot(page, "search")
    page.keyboard.press("Enter")
    assert page.locator("#palette").is_hidden()
    assert "open" in target.get_attribute("class")
    assert scrolled_into_view(page, target)


def test_search_matches_a_blocks_search_keys(open_page, home: Home):
    page, _ = open_page(home)
    page.keyboard.press("Control+k")
    page.keyboard.type("fatturazione")
    results = page.locator("#palette-results li")
    assert results.count() == 1
    assert results.first.locator(".bid").text_content() == "#user-lena"


def test_palette_keys_slash_arrows_escape(open_page, home: Home):
    page, _ = open_page(home)
    page.keyboard.press("/")
    assert page.locator("#palette").is_visible()
    page.keyboard.type("invoice")
    items = page.locator("#palette-results li")
    assert items.count() >= 3
    assert items.nth(0).get_attribute("aria-selected") == "true"
    page.keyboard.press("ArrowDown")
    assert items.nth(1).get_attribute("aria-selected") == "true"
    second = items.nth(1).get_attribute("id")
    assert second == "pal-1"
    page.keyboard.press("ArrowUp")
    assert items.nth(0).get_attribute("aria-selected") == "true"
    page.keyboard.press("Escape")
    assert page.locator("#palette").is_hidden()
    page.keyboard.press("Control+k")
    page.keyboard.type("no such words anywhere")
    assert page.locator("#palette-results").text_content() == "No matches."


# -- graph --------------------------------------------------------------------------


def node_point(page, uid: str) -> dict:
    return page.evaluate(
        """(uid) => {
            const cy = window.agdViewerGraph();
            const p = cy.getElementById(uid).renderedPosition();
            const r = document.getElementById('cy').getBoundingClientRect();
            return {x: r.left + p.x, y: r.top + p.y};
        }""",
        uid,
    )


def test_graph_click_shows_body(open_page, home: Home):
    page, _ = open_page(home)
    page.click("[data-view=graph]")
    page.wait_for_function("() => window.agdViewerGraph && window.agdViewerGraph() !== null")
    counts = page.evaluate(
        "(() => { const cy = window.agdViewerGraph(); return [cy.nodes().length, cy.edges().length]; })()"
    )
    assert counts == [48, 5]  # every block; the 5 refs that resolve (6 minus the dangling one)
    sizes = page.evaluate(
        "(() => { const cy = window.agdViewerGraph(); return [cy.getElementById('project:decision-invoices').width(), cy.getElementById('project:filler-00').width()]; })()"
    )
    assert sizes[0] > sizes[1]  # sized by degree
    point = node_point(page, "project:decision-invoices")
    page.mouse.click(point["x"], point["y"])
    pane = page.locator("#graph-pane")
    pane.locator(".pane-id").wait_for()
    assert pane.locator(".pane-id").text_content() == "#decision-invoices"
    assert "zanzibar" in pane.locator(".md").text_content()
    page.wait_for_timeout(400)  # the centring animation
    shot(page, "graph")
    pane.locator("a.ref-link", has_text="#user-lena").click()
    assert pane.locator(".pane-id").text_content() == "#user-lena"
    page.click("#graph-fit")
    page.click("#graph-relayout")
    page.keyboard.press("Escape")
    assert pane.locator(".pane-empty").count() == 1


def test_graph_colours_nodes_by_kind(open_page, home: Home):
    page, _ = open_page(home)
    page.click("[data-view=graph]")
    page.wait_for_function("() => window.agdViewerGraph && window.agdViewerGraph() !== null")
    colours = page.evaluate(
        "(() => { const cy = window.agdViewerGraph(); return ['project:user-lena', 'project:feedback-tests', 'project:decision-invoices', 'global:ref-wiki'].map(u => cy.getElementById(u).data('color')); })()"
    )
    assert colours == ["#9333ea", "#ea580c", "#16a34a", "#2563eb"]


# -- picker, theme, live reload, bad files, no libraries ---------------------------


def test_project_picker_switches_project(open_page, home: Home):
    page, _ = open_page(home)
    options = page.locator("#project option").all_text_contents()
    assert options[0].startswith("/work/harbor") and options[1].startswith("/work/other")
    assert options[2].startswith("Global layer only")
    page.select_option("#project", "-work-other")
    page.wait_for_selector('article.row[data-uid="project:other-go"]')
    assert page.locator("#title").text_content() == "Other project"
    assert "project=-work-other" in page.url


def test_theme_is_remembered(open_page, home: Home):
    page, _ = open_page(home)
    before = page.evaluate("document.documentElement.dataset.theme")
    page.click("#theme")
    after = page.evaluate("document.documentElement.dataset.theme")
    assert {before, after} == {"light", "dark"}
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    assert page.evaluate("document.documentElement.dataset.theme") == after
    if after == "dark":
        page.click("[data-view=graph]")
        page.wait_for_function("() => window.agdViewerGraph && window.agdViewerGraph() !== null")
        shot(page, "graph-dark")


def test_live_reload_shows_a_new_block(open_page, home: Home):
    page, _ = open_page(home)
    with home.project.open("a", encoding="utf-8") as f:
        f.write(
            '\n@x-project desc="written while the page is open" [#late-arrival]\n~~~\nhello\n~~~\n'
        )
    page.wait_for_selector('article.row[data-uid="project:late-arrival"]', timeout=10_000)
    assert "reloaded" in page.locator("#toast").text_content()


def test_malformed_file_is_reported_in_the_page(open_page, home: Home):
    home.project.write_text(
        '@meta format=agd [#meta]\n\n@x-project desc="unclosed [#broken]\n', encoding="utf-8"
    )
    page, _ = open_page(home)
    banner = page.locator(".banner.error")
    assert banner.count() == 1
    assert "project memory file does not parse" in banner.text_content()
    assert str(home.project) in banner.text_content()
    assert row(page, "global:pref-no-emoji").count() == 1


def test_page_works_without_node_modules(open_page, home: Home, monkeypatch, tmp_path):
    monkeypatch.setattr(assets, "node_modules_dir", lambda root: None)
    monkeypatch.setattr(assets, "REPO_ROOT", tmp_path / "no-lock")  # no fetch from the registry
    page, _ = open_page(home)
    tests = row(page, "project:feedback-tests")
    tests.locator(".row-main").click()
    assert "make db-up" in tests.locator(".plain-body").text_content()
    page.click("[data-view=graph]")
    missing = page.locator("#graph-missing")
    assert missing.is_visible()
    assert "npm ci" in missing.text_content()


def test_deep_link_to_a_block(open_page, home: Home):
    page, _ = open_page(home, path="/?project=-work-harbor#project%3Acredit-notes")
    target = row(page, "project:credit-notes")
    assert "open" in target.get_attribute("class")
    assert scrolled_into_view(page, target)


def test_show_in_graph_and_search_over_the_graph(open_page, home: Home):
    page, _ = open_page(home)
    lena = row(page, "project:user-lena")
    lena.locator(".row-main").click()
    lena.get_by_role("button", name="Show in graph").click()
    assert page.locator("#graph-view").is_visible()
    pane = page.locator("#graph-pane")
    assert pane.locator(".pane-id").text_content() == "#user-lena"
    # The palette over the graph selects the node and stays in the graph.
    page.keyboard.press("Control+k")
    page.keyboard.type("zanzibar")
    page.keyboard.press("Enter")
    assert page.locator("#graph-view").is_visible()
    assert pane.locator(".pane-id").text_content() == "#decision-invoices"
    selected = page.evaluate("() => window.agdViewerGraph().$('node:selected').map(n => n.id())")
    assert selected == ["project:decision-invoices"]
    pane.get_by_role("button", name="Open in read view").click()
    assert page.locator("#read-view").is_visible()
    assert scrolled_into_view(page, row(page, "project:decision-invoices"))


def test_page_says_when_the_server_has_stopped(open_page, home: Home, serve):
    page, watch = open_page(home)
    srv = next(s for s in serve.started if s.origin.rstrip("/") == watch.origin)
    srv.shutdown()
    srv.server_close()
    banner = page.locator(".banner.error", has_text="not running any more")
    banner.wait_for(timeout=10_000)
    # The failed polls themselves are logged by Chromium (refused, or reset when a poll was
    # in flight as the server closed); nothing else may be.
    lost = ("net::ERR_CONNECTION_REFUSED", "net::ERR_CONNECTION_RESET", "net::ERR_EMPTY_RESPONSE")
    watch.errors[:] = [e for e in watch.errors if not e.endswith(lost)]


# -- review and editing (issue 19 §1) ----------------------------------------------------


def _queue(home: Home, *proposals) -> list[str]:
    from agd_memory import store
    from agd_memory.distill import review

    mf = store.MemoryFile(home.project, settings=home.settings)
    return [
        i.id for i in review.enqueue(mf, list(proposals), source="distill", session="s-7").added
    ]


def _entry(home: Home, block_id: str):
    from agd_memory import store

    return store.MemoryFile(home.project, settings=home.settings).entry(block_id)


def test_review_view_accepts_rejects_and_edits(open_page, home: Home):
    from agd_memory.distill.review import Proposal

    accept_id, reject_id, edit_id = _queue(
        home,
        Proposal.save("x-project", "ci-host", "CI runs on Forgejo.", desc="CI host"),
        Proposal.save("x-project", "lint", "Ruff, not flake8.", desc="linter"),
        Proposal.save("x-feedback", "tabs", "Tabs in Makefiles only.", desc="tabs"),
    )
    page, watch = open_page(home)
    tab = page.locator('.seg [data-view="review"]')
    tab.filter(has_text="Review (3)").wait_for()
    tab.click()
    cards = page.locator(".review-item")
    assert cards.count() == 3
    first = page.locator(f'.review-item[data-qid="{accept_id}"]')
    assert "+CI runs on Forgejo." in first.locator(".diff").text_content()
    assert "session s-7" in first.text_content()
    shot(page, "review")

    first.locator('[data-action="accept"]').click()
    page.wait_for_selector(f'.review-item[data-qid="{accept_id}"]', state="detached")
    assert _entry(home, "ci-host").body == "CI runs on Forgejo."
    page.wait_for_selector('article.row[data-uid="project:ci-host"]', state="attached")

    page.locator(f'.review-item[data-qid="{reject_id}"] [data-action="reject"]').click()
    page.wait_for_selector(f'.review-item[data-qid="{reject_id}"]', state="detached")
    assert _entry(home, "lint") is None

    card = page.locator(f'.review-item[data-qid="{edit_id}"]')
    card.locator('[data-action="edit"]').click()
    area = card.locator("textarea.review-text")
    area.fill(area.input_value().replace("Makefiles only.", "Makefiles, spaces elsewhere."))
    card.locator('[data-action="save-edit"]').click()
    page.locator(".review-item .diff", has_text="+Tabs in Makefiles, spaces elsewhere.").wait_for()
    assert _entry(home, "tabs") is None  # still pending
    card = page.locator(f'.review-item[data-qid="{edit_id}"]')
    card.locator('[data-action="edit"]').click()
    card.locator("textarea.review-text").fill("not an entry")
    card.locator('[data-action="save-edit"]').click()
    page.wait_for_selector(".review-error:not([hidden])")
    assert "does not parse" in card.locator(".review-error").text_content()
    assert _entry(home, "tabs") is None
    # the refusal is the one error of the page: its 409 answer
    assert watch.errors == [
        "Failed to load resource: the server responded with a status of 409 (Conflict)"
    ]
    watch.errors.clear()


def test_an_entry_is_edited_and_deleted_in_the_page(open_page, home: Home):
    page, _ = open_page(home)
    target = row(page, "project:decision-invoices")
    target.locator(".row-main").click()
    target.locator('[data-action="edit-entry"]').click()
    target.locator("input.edit-desc").fill("<b>one counter per year</b>")
    target.locator("select.edit-status").select_option("done")
    target.locator("input.edit-keys").fill("Rechnungsnummer")
    target.locator("textarea.edit-body").fill("One counter row per year.")
    target.locator('[data-action="save-entry"]').click()
    row(page, "project:decision-invoices").locator(
        ".desc", has_text="<b>one counter per year</b>"
    ).wait_for()
    saved = _entry(home, "decision-invoices")
    assert (saved.desc, saved.status, saved.body) == (
        "<b>one counter per year</b>",
        "done",
        "One counter row per year.",
    )
    assert saved.attrs["keys"] == "rechnungsnummer"
    assert row(page, "project:decision-invoices").locator(".desc b").count() == 0  # text, not HTML

    filler = row(page, "project:filler-00")
    filler.locator(".row-main").click()
    filler.locator('[data-action="delete-entry"]').click()
    assert _entry(home, "filler-00") is not None  # the first click only arms it
    filler.locator('[data-action="delete-entry"]').click()
    page.wait_for_selector('article.row[data-uid="project:filler-00"]', state="detached")
    assert _entry(home, "filler-00") is None


def test_cross_origin_and_tokenless_posts_are_refused(browser, serve, home: Home):
    target = serve(home)
    before = home.project.read_bytes()
    url = f"{target.origin}api/entry"
    body = '{"project": "x", "layer": "project", "action": "delete", "id": "filler-01"}'
    context = browser.new_context()
    # a page of another origin, served by the test itself (nothing leaves the machine)
    context.route(
        "http://evil.example/**",
        lambda r: r.fulfill(status=200, content_type="text/html", body="<p>hello</p>"),
    )
    try:
        page = context.new_page()
        page.goto("http://evil.example/")
        # with the token header, a cross-origin fetch needs a preflight, which is refused
        outcome = page.evaluate(
            """async ([url, body]) => {
                try {
                    const r = await fetch(url, {method: "POST", body,
                        headers: {"Content-Type": "application/json", "X-AGD-Token": "x"}});
                    return "answered " + r.status;
                } catch (e) { return "blocked"; }
            }""",
            [url, body],
        )
        assert outcome == "blocked"
        # a "simple" cross-origin POST (no preflight): Chromium may block it before it leaves
        # (private network access); if it arrives, the server refuses its Origin
        page.evaluate(
            """async ([url, body]) => {
                try { await fetch(url, {method: "POST", mode: "no-cors", body}); } catch (e) {}
            }""",
            [url, body],
        )
        page.goto(target.url)  # the viewer's own page, but a POST without its token
        status = page.evaluate(
            """async ([body]) => (await fetch("/api/entry", {method: "POST", body,
                headers: {"Content-Type": "application/json"}})).status""",
            [body],
        )
        assert status == 403
    finally:
        context.close()
    assert home.project.read_bytes() == before


# -- the README's picture ---------------------------------------------------------------

README_PICTURE = Path(__file__).resolve().parents[2] / "docs" / "viewer.png"


def test_the_readme_picture_shows_the_example_memory(open_page, tmp_path):
    """docs/viewer.png is made here, from the bundled example memory, so it stays true."""
    from viewer_fixtures import make_home, write

    examples = Path(__file__).resolve().parents[2] / "examples"
    folder = tmp_path / "home" / ".claude" / "projects" / "-home-lena-src-harbor" / "memory"
    project = write(folder / "memory.agd", (examples / "memory.agd").read_text("utf-8"))
    global_ = write(
        tmp_path / "home" / ".claude" / "memory" / "global.agd",
        (examples / "global.agd").read_text("utf-8"),
    )
    home = make_home(tmp_path, project, project, global_)
    page, _ = open_page(home)
    page.set_viewport_size({"width": 1200, "height": 720})
    tests = row(page, "project:feedback-tests")
    tests.locator(".row-main").click()
    assert tests.locator(".detail .md").count() == 1
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_timeout(300)
    README_PICTURE.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(README_PICTURE))
    assert README_PICTURE.stat().st_size > 10_000
