"""Issue 26's seventh pass: evidence counted as the user wrote it (units), and the share a
block needs set by whether the prompt refers to the team's own past (cue, cue-strict)."""

from __future__ import annotations

from recall_helpers import FILLER, entry, ids

from agd_memory.recall import engine, policy
from agd_memory.recall.eval.features import DEFAULT

MONEY = entry(
    "money-cents",
    kind="x-feedback",
    desc="money is integer cents",
    body="Amounts are stored and passed as integer cents; display goes through formatEuro()"
    " in packages/shared/src/money.ts.",
)
FREEZE = entry(
    "deploy-freeze",
    kind="x-feedback",
    desc="no deploys on Friday afternoon",
    body="Production deploys stop at Friday 14:00 until Monday; hotfixes need Marta's approval.",
)
BLOCKS = [*FILLER, MONEY, FREEZE]


def test_words_written_as_one_count_as_one() -> None:
    units = [frozenset({"packag", "shar"}), frozenset({"pass"}), frozenset({"shar"})]
    assert engine.evidence(frozenset({"packag", "shar", "pass"}), units) == 2
    assert engine.evidence(frozenset({"shar", "pass"}), units) == 2
    # without the prompt's written words, each word counts
    assert engine.evidence(frozenset({"packag", "shar", "pass"}), ()) == 3


def test_a_path_the_prompt_shares_with_a_block_is_one_piece_of_evidence(make_settings) -> None:
    # `packages/shared` and `passes` were three body words, enough to anchor the money rule
    # on a question about the editor that it does not answer (three words the block only
    # mentions, none in its desc, now need a one-word share too: `unnamed`)
    prompt = "why does the editor show red squiggles on every import from packages/shared even though tsc passes?"
    assert ids(prompt, BLOCKS, make_settings()) == []
    assert ids(prompt, BLOCKS, make_settings(), DEFAULT - {"units", "unnamed"}) == ["money-cents"]


def test_a_question_about_the_teams_past_needs_less_of_the_prompt(make_settings) -> None:
    prompt = "what did we decide about production deploys of the kiosk app on the new runner?"
    assert ids(prompt, BLOCKS, make_settings()) == ["deploy-freeze"]
    assert ids(prompt, BLOCKS, make_settings(), DEFAULT - {"cue", "cue-strict"}) == []


def test_a_task_that_does_not_refer_to_the_past_needs_more(make_settings) -> None:
    prompt = "bump the kiosk build number for the production deploys"
    assert ids(prompt, BLOCKS, make_settings()) == []
    assert ids(prompt, BLOCKS, make_settings(), DEFAULT - {"cue", "cue-strict"}) == ["deploy-freeze"]


def test_the_cue_words() -> None:
    for prompt in [
        "what did we decide about the cache?",
        "how does our deploy work",
        "remind me of the staging password rule",
        "cosa avevamo deciso sul deploy?",
        "l'ultima volta come abbiamo risolto il timeout?",
        "il nostro script di rilascio",
        "the import failed yesterday with the same timeout as before",
        "l'errore di ieri sul backup",
        "questo errore è già capitato?",
        "¿qué decidimos sobre nuestro despliegue?",
        "wie haben wir das letzte Mal den Cache geleert?",
    ]:
        own = prompt in ("how does our deploy work", "il nostro script di rilascio")
        assert policy.cue_of(prompt) == ("own" if own else "past"), prompt
    for prompt in [
        "add a --json flag to the export command",
        "aggiungi un pulsante per stampare la scheda",
        "the usb reader drops a digit",
        "rename this variable",
    ]:
        assert policy.cue_of(prompt) is None, prompt


KIOSK = entry(
    "kiosk-build",
    desc="kiosk app builds with Gradle flavors",
    body="The kiosk flavor signs with the store key; CI builds it on tags only.",
)


def test_a_how_to_question_is_a_request_for_work(make_settings) -> None:
    # `how do I ...` asks for work to be done: a fact must account for most of it, as for
    # `add ...`; asked about the team's past, or as a plain question, the fact answers
    how_to = "how do I add a new gradle flavor for the kiosk app with a different icon?"
    assert policy.asks_for_work(how_to) and policy.asks_for_work("come si configura il proxy?")
    assert ids(how_to, [*FILLER, KIOSK], make_settings()) == []
    for prompt in [
        "how did we set up the gradle flavor for the kiosk app icon?",
        "which gradle flavor does the kiosk app build with a different icon?",
    ]:
        assert not policy.asks_for_work(prompt)
        assert ids(prompt, [*FILLER, KIOSK], make_settings()) == ["kiosk-build"]
    assert not policy.asks_for_work("come abbiamo configurato il proxy?")
