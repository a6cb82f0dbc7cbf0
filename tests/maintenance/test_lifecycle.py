"""Status markers and dates read from old descs and bodies."""

from __future__ import annotations

import pytest

from agd_memory.maintenance import lifecycle


@pytest.mark.parametrize(
    ("desc", "status"),
    [
        ("FATTO: migrazione a Postgres", "done"),
        ("fatto - niente emoji", "done"),
        ("  Completato il porting", "done"),
        ("[RISOLTO] bug IVA", "done"),
        ("Done - deploy su Kubernetes", "done"),
        ("DONE deploy", "done"),
        ("closed: ticket 42", "done"),
        ("TODO: rinnovare il certificato", "open"),
        ("todo rinnovare", "open"),
        ("Da fare: pulizia log", "open"),
        ("dafare pulizia", "open"),
        ("In corso: refactoring", "open"),
        ("wip refactoring auth", "open"),
        ("Open: porta 8080", "open"),
        ("(aperto) ticket fornitore", "open"),
        # ordinary sentences that merely start with an English marker word
        ("Open the SSH tunnel before running migrations", None),
        ("Done reading the logs means nothing", None),
        ("Aperto il ticket con il fornitore", None),
        ("Closedform solution", None),
        ("Todos the app: not a marker", None),
        ("deploy fatto ieri", None),
        ("", None),
    ],
)
def test_status_from_desc(desc, status):
    assert lifecycle.status_from_desc(desc) == status


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ("TODO: rinnovare\naltro", "open"),
        ("\n\nFATTO - migrato", "done"),
        ("DA FARE: pulizia", "open"),
        ("Todo: in minuscolo è prosa", None),
        ("open the file first", None),
        ("Il TODO è nel secondo posto", None),
        ("", None),
    ],
)
def test_status_from_body_needs_capitals_on_the_first_line(body, status):
    assert lifecycle.status_from_body(body) == status


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("FATTO 2025-11-03: migrazione", "2025-11-03"),
        ("prima 2026-13-45 poi 2026-02-28", "2026-02-28"),
        ("2026-02-30 non esiste", None),
        ("versione 12026-01-01 no", None),
        ("31/01/2026 formato italiano", None),
        ("1999-01-01 fuori dal secolo", None),
        ("build 2026-01-011", None),
    ],
)
def test_first_date(text, date):
    assert lifecycle.first_date(text) == date
