"""The History tab in a real headless Chromium: browse sessions, search, open a hit with its
neighbours, forget a session (asked first) — against the same files `agd-memory history` uses."""

from __future__ import annotations

import pytest
from test_viewer_browser import browser, libraries, open_page  # noqa: F401 - fixtures
from viewer_fixtures import Home

from agd_memory.history import files
from agd_memory.history import search as hsearch
from agd_memory.history.exchanges import Exchange, Read

pytestmark = [pytest.mark.browser]

MIGRATION = "a1b2c3d4-0000-4000-8000-000000000001"
RELEASE = "a1b2c3d4-0000-4000-8000-000000000002"


def add_history(home: Home) -> None:
    folder = files.folder_of(home.project)
    files.write(folder, Read(MIGRATION, [
        Exchange(MIGRATION, 1, "2026-11-02T09:00:00Z",
                 "user: run the invoice migration on staging\nassistant: running it now\n"
                 "tool: Bash alembic upgrade head"),
        Exchange(MIGRATION, 2, "2026-11-02T09:05:00Z",
                 "user: what failed?\nassistant: psycopg.errors.UniqueViolation: duplicate key "
                 "value violates unique constraint \"invoice_number_key\""),
        Exchange(MIGRATION, 3, "2026-11-02T09:20:00Z",
                 "user: fix it with the gapless counter\nassistant: done, the counter table "
                 "now hands out numbers"),
    ], 0))  # fmt: skip
    files.write(folder, Read(RELEASE, [
        Exchange(RELEASE, 1, "2026-11-20T14:00:00Z",
                 "user: tag release 2.4 and open the changelog PR\nassistant: opened PR #812"),
    ], 0))  # fmt: skip


def test_history_tab_lists_searches_opens_and_forgets(open_page, home: Home):  # noqa: F811
    add_history(home)
    page, _ = open_page(home)
    page.click('.seg [data-view="history"]')
    sessions = page.locator("article.history-session")
    sessions.first.wait_for()
    # Newest first, each with its date, first prompt and number of exchanges.
    assert sessions.count() == 2
    assert sessions.nth(0).get_attribute("data-session") == RELEASE
    first = sessions.nth(1)
    assert "2026-11-02 09:00" in first.locator(".chip.date").text_content()
    assert first.locator(".history-prompt").text_content() == "run the invoice migration on staging"
    assert first.locator(".chip", has_text="exchanges").text_content().startswith("3 exchanges")

    # The search is the CLI's: the same exchange ranks first.
    page.fill("#history-q", "UniqueViolation invoice_number_key")
    page.press("#history-q", "Enter")
    hits = page.locator("article.history-hit")
    hits.first.wait_for()
    cli_first = hsearch.search(
        files.folder_of(home.project), "UniqueViolation invoice_number_key", home.settings
    )[0].id
    assert hits.first.get_attribute("data-id") == cli_first == f"h-{MIGRATION}-2"
    assert "session " + MIGRATION in hits.first.locator(".chip.date").text_content()

    # Opening the hit shows it between its neighbours, in order.
    hits.first.locator('[data-action="open"]').click()
    shown = page.locator("article.history-exchange")
    shown.first.wait_for()
    assert [shown.nth(i).get_attribute("data-id") for i in range(shown.count())] == [
        f"h-{MIGRATION}-{n}" for n in (1, 2, 3)
    ]
    assert "hit" in shown.nth(1).get_attribute("class")
    assert "UniqueViolation" in shown.nth(1).locator(".history-text").text_content()

    # Forget asks first; Cancel keeps the session, Forget removes its file.
    page.click('[data-action="back"]')
    target = page.locator(f'article.history-session[data-session="{MIGRATION}"]')
    target.wait_for()
    target.locator('[data-action="forget"]').click()
    assert "cannot be undone" in target.locator(".history-confirm").text_content()
    target.locator(".history-confirm button", has_text="Cancel").click()
    assert files.find_session(files.folder_of(home.project), MIGRATION) is not None
    target.locator('[data-action="forget"]').click()
    target.locator('[data-action="confirm-forget"]').click()
    page.wait_for_selector(f'article.history-session[data-session="{MIGRATION}"]', state="detached")
    assert page.locator("article.history-session").count() == 1
    assert files.find_session(files.folder_of(home.project), MIGRATION) is None
    page.fill("#history-q", "UniqueViolation")
    page.press("#history-q", "Enter")
    page.wait_for_selector("#history-list .empty")
    assert "No exchange in the history matches" in page.locator("#history-list").text_content()
