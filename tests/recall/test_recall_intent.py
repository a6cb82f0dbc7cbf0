"""What the prompt asks for, beyond its words: a where-question, a poem, private life."""

from __future__ import annotations

from recall_helpers import FILLER, ListFile, entry, ids

from agd_memory.recall import policy, recall
from agd_memory.recall.eval import variants
from agd_memory.recall.eval.features import DEFAULT

BLOCKS = [
    entry(
        "scanner-setup",
        desc="barcode scanner programming: codes end with Enter",
        body="The barcode scanner types each code like a keyboard and then Enter; we programmed it"
        " to add no prefix. pos.js stops the form submit on Enter.",
    ),
    entry(
        "ref-scanner-manual",
        kind="x-reference",
        desc="scanner manual with the programming barcodes",
        body="The PDF manual is in docs/hardware/; page 12 has the barcodes that reset the scanner.",
    ),
    entry(
        "push-setup", desc="push notifications through FCM", body="Tokens are stored per device."
    ),
    *FILLER,
]


def test_a_where_question_puts_the_reference_entry_first(make_settings) -> None:
    settings = make_settings()
    for prompt in (
        "where are the programming codes for the barcode scanner?",
        "dove sono i codici per programmare lo scanner barcode?",
    ):
        assert ids(prompt, BLOCKS, settings)[:1] == ["ref-scanner-manual"], prompt
        without = ids(prompt, BLOCKS, settings, DEFAULT - {"where-reference"})
        assert without[:1] == ["scanner-setup"], prompt


def test_other_questions_rank_as_before(make_settings) -> None:
    prompt = "how does the barcode scanner send the programming codes?"
    settings = make_settings()
    assert ids(prompt, BLOCKS, settings) == ids(
        prompt, BLOCKS, settings, DEFAULT - {"where-reference"}
    )


def test_a_request_for_a_poem_about_a_stored_topic_gets_nothing(make_settings) -> None:
    settings = make_settings()
    r = recall("write a haiku about push notifications", [ListFile(BLOCKS)], settings)
    assert r.skipped == "creative_request" and not r.chosen
    assert ids("how do we send push notifications?", BLOCKS, settings) == ["push-setup"]


def test_a_question_about_the_users_family_gets_nothing(make_settings) -> None:
    settings = make_settings()
    prompt = "my son gets push notifications from FCM at night"
    r = recall(prompt, [ListFile(BLOCKS)], settings)
    assert r.skipped == "personal_life" and not r.chosen
    assert ids(prompt, BLOCKS, settings, DEFAULT - {"personal"}) == ["push-setup"]


SESSIONS = [
    entry(
        "bug-portal-logout",
        desc="portal logged users out on iPhone: Safari dropped the session cookie",
        body="The session cookie lacked SameSite=None; Safari on iPhone expired the session"
        " after each app switch. Fixed in the portal's cookie settings.",
    ),
    *FILLER,
]


def test_a_question_about_the_users_own_bank_or_car_gets_nothing(make_settings) -> None:
    """personal: the user's bank, car, house or gym are private life, as family is; a
    prompt about them is not about the project even when it shares its words (`session
    expired`, `iPhone`). `my home directory` is a developer's, and stays a prompt."""
    settings = make_settings()
    for prompt in (
        "my bank app logged me out and my iPhone says the session expired, was I hacked?",
        "la mia banca mi ha scollegato dall'app sull'iPhone, sessione scaduta: è normale?",
    ):
        r = recall(prompt, [ListFile(SESSIONS)], settings)
        assert r.skipped == "personal_life" and not r.chosen, prompt
        assert ids(prompt, SESSIONS, settings, DEFAULT - {"personal"}) == ["bug-portal-logout"]
    work = "why does the portal log me out on my iPhone when the session cookie is in my home dir?"
    assert recall(work, [ListFile(SESSIONS)], settings).skipped is None


RULES = [
    entry(
        "sms-reminders",
        desc="SMS reminders sent by Twilio the day before an appointment",
        body="ReminderJob runs hourly and texts patients 24 hours ahead; the sent time is stored.",
    ),
    entry(
        "fb-safe-migrations",
        kind="x-feedback",
        desc="migrations: add columns nullable, backfill in a separate job",
        body="Never add a column with a default and a backfill in one migration on appointments.",
    ),
    *FILLER,
]


def test_a_request_for_work_puts_the_rule_of_work_first(make_settings) -> None:
    settings = make_settings()

    def first(prompt: str, features=DEFAULT) -> str:
        r = variants.recall(prompt, [ListFile(RULES)], settings, features)
        return str(r.chosen[0].entry.id) if r.chosen else ""

    task = "add a reminder column to appointments and backfill the existing SMS reminders"
    assert first(task) == "fb-safe-migrations"
    assert first(task, DEFAULT - {"task-feedback", "task-facts"}) == "sms-reminders"
    # a question about the same words is about the fact, not the rule
    assert first("when are the SMS reminders for appointments sent?") == "sms-reminders"


def test_a_request_to_run_something_is_a_request_for_work(make_settings) -> None:
    """The request may come after the context, and `run`/`lancia` ask for work as `add`
    does (`lancia`, like `aggiungi`, names no topic: `run` does, a test run, a dry run;
    Italian `pure`, "go ahead", is a function word, not the thing the task is about)."""
    settings = make_settings()
    for task in (
        "the appointments table is missing reminder times, run the backfill migration now",
        "lancia pure il backfill delle appointments sul server di produzione, facciamo prima",
    ):
        r = variants.recall(task, [ListFile(RULES)], settings, DEFAULT)
        assert [str(s.entry.id) for s in r.chosen][:1] == ["fb-safe-migrations"], task
        assert "lancia" not in r.words


FACTS = [
    entry(
        "progress-output",
        desc="progress output: one status line on a terminal, plain lines when piped",
        body="The CLI redraws one status line (files, bytes, rate) with a carriage return when"
        " stdout is a terminal, and prints a plain line per 1,000 files when piped.",
    ),
    entry(
        "scan-speed",
        desc="scan speed: parallel walk, unchanged files skipped by size and mtime",
        body="Files whose size and mtime match the catalog are not hashed again.",
    ),
    *FILLER,
]


def test_a_request_for_work_gets_a_fact_only_when_it_names_it(make_settings) -> None:
    """task-facts: a task shares a word or two with many of the project's facts ("rename
    the rate variable in the status line code"); a fact goes in only when it accounts for
    half the task."""
    settings = make_settings()
    task = "rename the rate variable in the status line code"
    assert ids(task, FACTS, settings) == []
    assert ids(task, FACTS, settings, DEFAULT - {"task-facts"}) != []
    named = "make the progress status line on the terminal show the upload rate"
    assert ids(named, FACTS, settings)[:1] == ["progress-output"]
    # a question with the same words is not a task: the share rule alone judges it
    question = "why does the progress output print plain lines when piped?"
    assert ids(question, FACTS, settings)[:1] == ["progress-output"]


MONEY = [
    entry(
        "fb-money-decimal",
        kind="x-feedback",
        desc="money is Decimal end to end; never float for prices",
        body="Since version 2 the API returns every amount as a string of a Decimal, so totals"
        " round the same in the database and in the invoices.",
    ),
    entry(
        "api-layout",
        desc="the API: one FastAPI router per resource under api/routers",
        body="Routers are mounted in api/main.py; the OpenAPI schema is published on each deploy.",
    ),
    *FILLER,
]


def test_a_request_for_work_gets_a_rule_when_it_names_it_in_the_rules_words(make_settings) -> None:
    """task-rules: a rule of work whose body shares a few of the project's words with a task
    (the API, returns, version) is not about it; named by two words of its desc it is, and
    a rule the task names by a word no other block has (`backfill`) needs no more."""
    settings = make_settings()
    task = "add a health endpoint to the API that returns the app version and the database status"
    assert "fb-money-decimal" not in ids(task, MONEY, settings)
    assert ids(task, MONEY, settings, DEFAULT - {"task-facts"})[:1] == ["fb-money-decimal"]
    named = "add a discount to the invoice lines and round the prices of the totals"
    assert ids(named, MONEY, settings)[:1] == ["fb-money-decimal"]
    backfill = "lancia pure il backfill delle appointments sul server di produzione, facciamo prima"
    assert ids(backfill, RULES, settings)[:1] == ["fb-safe-migrations"]


INVOICES = [
    entry(
        "invoice-numbering",
        desc="invoice numbers: one sequence per year, no gaps, assigned at issue",
        body="Numbers come from a row-locked counter per year; a cancelled invoice keeps its"
        " number and gets a credit note.",
    ),
    *FILLER,
]


def test_our_alone_does_not_make_a_how_to_a_question_about_the_past(make_settings) -> None:
    """cue-own: `our` says the prompt is about the project, not that it asks for its past:
    `our invoice numbers page ..., how do I add pagination` is a request for work, and a
    fact that shares its words stays out; a question about the past still gets it."""
    settings = make_settings()
    how_to = "our invoice numbers page loads slowly, how do I add pagination by year?"
    assert policy.cue_of(how_to) == "own" and policy.asks_for_work(how_to)
    assert ids(how_to, INVOICES, settings) == []
    assert ids(how_to, INVOICES, settings, DEFAULT - {"task-facts"}) == ["invoice-numbering"]
    past = "how did we number the invoices last year, and can a number have gaps?"
    assert policy.cue_of(past) == "past" and not policy.asks_for_work(past)
    assert ids(past, INVOICES, settings)[:1] == ["invoice-numbering"]
