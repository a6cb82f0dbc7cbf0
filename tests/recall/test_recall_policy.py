"""Gates, the anchor rule, floors, top-k, recency and the budget (reference rules)."""

from __future__ import annotations

from recall_helpers import entry

from agd_memory.recall import policy
from agd_memory.recall.eval.features import REFERENCE
from agd_memory.recall.eval.reference import score_all
from agd_memory.recall.eval.variants import VariantAnalyzer
from agd_memory.recall.policy import Gates, Ranking, fit_budget, rank, should_skip
from agd_memory.recall.scoring import Index, Prompt

NO_FLOORS = Ranking(top_k=10, min_score=0.0, min_score_ratio=0.0)


def ranked(entries, words, ranking=NO_FLOORS, fuzzy=False):
    an = VariantAnalyzer(REFERENCE)
    idx = Index(entries, an)
    return [
        m.doc.entry.id for m in rank(score_all(idx, Prompt.build(words, an, fuzzy=fuzzy)), ranking)
    ]


# ---- should_skip


def skip(prompt, min_words=3, **kw):
    words = [w for w in prompt.lower().split() if len(w) >= 3 and w not in ("the", "and")]
    return should_skip(prompt, words, Gates(min_words=min_words, **kw))


def test_empty_and_whitespace_prompts_are_skipped() -> None:
    assert skip("") == policy.EMPTY
    assert skip("   \n ") == policy.EMPTY


def test_prompts_below_min_words_are_skipped() -> None:
    assert skip("ok") == policy.BELOW_MIN_WORDS
    assert skip("the and") == policy.BELOW_MIN_WORDS
    assert skip("deploy staging server") is None


def test_too_long_prompt_is_skipped() -> None:
    assert skip("word " * 1000) == policy.TOO_LONG
    assert skip("word " * 1000, max_prompt_chars=10_000) is None


def test_code_fence_anywhere_is_a_code_paste() -> None:
    assert skip("why does this fail ```x = 1``` please help") == policy.CODE_PASTE


def test_indentation_ratio_marks_a_code_paste() -> None:
    code = "def f():\n" + "".join(f"    line{i} = {i}\n" for i in range(5))
    assert skip(code) == policy.CODE_PASTE
    assert skip(code, code_line_ratio=0.95) is None


def test_four_lines_are_never_a_code_paste_by_indentation() -> None:
    assert not policy.looks_like_code("a\n  b\n  c\n  d", 0.4)


def test_disabled_wins_over_everything() -> None:
    assert skip("deploy staging server", disabled=True) == policy.DISABLED


def test_short_gate_lets_a_prompt_naming_a_block_through(make_settings) -> None:
    from recall_helpers import ListFile, entry

    from agd_memory.recall import recall

    files = [ListFile([entry("deploy-vps", desc="deploy on the vps", body="scripts/deploy.sh")])]
    assert should_skip("deploy", ["deploy"], Gates()) == policy.BELOW_MIN_WORDS
    assert recall("deploy vps?", files, make_settings()).skipped is None
    assert recall("hello there", files, make_settings()).skipped == policy.BELOW_MIN_WORDS


# ---- ranking


def test_zero_score_blocks_are_dropped() -> None:
    assert ranked([entry("alpha", desc="alpha"), entry("beta", desc="beta")], ["alpha"]) == [
        "alpha"
    ]


def test_ties_go_to_the_shorter_body_then_the_lower_id() -> None:
    entries = [
        entry("b", desc="deploy", body="long body text here"),
        entry("c", desc="deploy", body="tiny"),
        entry("a", desc="deploy", body="tiny"),
    ]
    # equal desc hits; body lengths differ in tokens, so compare two with equal bodies
    got = ranked(entries[1:], ["deploy"])
    assert got == ["a", "c"]


def test_recency_breaks_ties_before_body_length() -> None:
    entries = [
        entry("old", desc="deploy", body="abc", updated="2025-01-01"),
        entry("new", desc="deploy", body="abcdefghijkl", updated="2026-01-01"),
    ]
    assert ranked(entries, ["deploy"])[0] == "new"


def test_ratio_floor_prunes_a_tail_block() -> None:
    entries = [
        entry("strong", desc="alpha beta gamma"),
        entry("weak", desc="alpha", body=" ".join(f"w{i}xx" for i in range(200))),
    ]
    words = ["alpha", "beta", "gamma"]
    assert ranked(entries, words) == ["strong", "weak"]
    assert ranked(entries, words, Ranking(top_k=3, min_score=0.0, min_score_ratio=0.35)) == [
        "strong"
    ]


def test_absolute_floor_can_return_nothing() -> None:
    assert ranked([entry("a", desc="alpha")], ["alpha"], Ranking(min_score=5.0)) == []


def test_anchor_rule_drops_body_only_matches() -> None:
    entries = [entry("x1", desc="unrelated", body="lista lista")]
    assert ranked(entries, ["lista"], Ranking(min_score=0, min_score_ratio=0)) == []
    assert ranked(entries, ["lista"], Ranking(min_score=0, require_anchor=False)) == ["x1"]


def test_desc_match_with_a_long_body_is_kept() -> None:
    body = " ".join(f"token{i}" for i in range(300))
    assert ranked([entry("x1", desc="deploy", body=body)], ["deploy"], Ranking(min_score=0)) == [
        "x1"
    ]


def test_two_cognates_in_desc_anchor_one_does_not() -> None:
    two = entry("x1", desc="categoria prodotti")
    one = entry("x2", desc="categoria")
    r = Ranking(min_score=0, min_score_ratio=0)
    assert (
        ranked([two], ["category", "products"], r, fuzzy=True) == []
    )  # `products`: no 5-prefix match
    assert ranked(
        [entry("x3", desc="categoria catalogo")], ["category", "catalogue"], r, fuzzy=True
    ) == ["x3"]
    assert ranked([one], ["category"], r, fuzzy=True) == []


def test_one_cognate_plus_one_exact_hit_is_enough() -> None:
    r = Ranking(min_score=0, min_score_ratio=0)
    assert ranked([entry("x1", desc="categoria truck")], ["category", "truck"], r, fuzzy=True) == [
        "x1"
    ]


def test_fuzzy_anchor_min_1_admits_a_single_cognate() -> None:
    r = Ranking(min_score=0, min_score_ratio=0, fuzzy_anchor_min=1)
    assert ranked([entry("x1", desc="categoria")], ["category"], r, fuzzy=True) == ["x1"]


def test_fuzzy_anchor_min_0_turns_the_anchor_rule_off() -> None:
    # reference behaviour, kept for compatibility: 0 also admits body-only matches
    r = Ranking(min_score=0, min_score_ratio=0, fuzzy_anchor_min=0)
    assert ranked([entry("x1", body="lista")], ["lista"], r) == ["x1"]


def test_superseded_blocks_are_skipped_unless_allowed() -> None:
    entries = [entry("old", desc="deploy", status="superseded"), entry("new", desc="deploy")]
    assert ranked(entries, ["deploy"]) == ["new"]
    assert sorted(ranked(entries, ["deploy"], Ranking(min_score=0, skip_superseded=False))) == [
        "new",
        "old",
    ]


def test_top_k_limits_the_result() -> None:
    entries = [entry(f"b{i}", desc="deploy") for i in range(5)]
    assert len(ranked(entries, ["deploy"], Ranking(top_k=2, min_score=0))) == 2


# ---- budget


def test_budget_keeps_the_first_block_even_when_too_big() -> None:
    assert fit_budget([500, 10], 200) == 1


def test_budget_stops_at_the_first_overflow_instead_of_skipping() -> None:
    assert fit_budget([100, 150, 10], 200) == 1


def test_budget_stops_once_reached() -> None:
    assert fit_budget([100, 100, 10], 200) == 2


def test_estimate_tokens_rounds_up() -> None:
    assert policy.estimate_tokens(9) == 3


def test_code_syntax_catches_a_short_snippet_above_a_question() -> None:
    snippet = (
        "def fib(n):\n    return n if n < 2 else fib(n - 1)\n\nprint(fib(40))\n\nwhy is this slow?"
    )
    assert not policy.looks_like_code(snippet, 0.4)  # the reference's rule: under 5 lines
    assert policy.looks_like_code(snippet, 0.4, syntax=True)
    assert skip(snippet, code_syntax=True) == policy.CODE_PASTE


def test_code_syntax_leaves_prose_alone() -> None:
    prose = "the deploy failed twice today.\nwhat changed in the release script?\nand who ran it?"
    assert not policy.looks_like_code(prose, 0.4, syntax=True)
    one_line = "add an endpoint (GET /sites) that returns a 404 when the site is gone"
    assert not policy.looks_like_code(one_line, 0.4, syntax=True)


def test_creative_requests_get_no_memory_in_every_builtin_language() -> None:
    for prompt in (
        "write a haiku about push notifications",
        "Please write me a short poem about our CI",
        "scrivimi una poesia sul mare d'inverno",
        "Écris-moi un poème sur Noël",
        "schreib mir ein Gedicht über Montag",
        "escribe un poema sobre el mar",
        "tell me a joke about invoices",
    ):
        assert skip(prompt, creative=True) == policy.CREATIVE, prompt
        assert skip(prompt) is None  # the reference has no such gate


def test_questions_about_private_life_get_no_memory_in_every_builtin_language() -> None:
    for prompt in (
        "my dentist keeps double booking me, should I switch clinics?",
        "my kid's school app keeps sending notifications, how do I mute it?",
        "mio cugino ha la partita IVA forfettaria, deve fare la fattura elettronica?",
        "la mia vecchia nonna non riesce a leggere le email",
        "mi abuelo tiene olivos en Jaén, ¿cuándo empieza la recogida?",
        "mon fils veut apprendre Python, par où commencer ?",
        "mein kleiner Bruder fragt, wie Rechnungen funktionieren",
        "o meu filho quer aprender a programar",
        "my personal Google Calendar shows every event twice",
    ):
        assert skip(prompt, personal=True) == policy.PERSONAL, prompt
        assert skip(prompt) is None  # the reference has no such gate


def test_personal_gate_leaves_project_work_alone() -> None:
    for prompt in (
        "can I run the migration from my laptop?",  # devices are where the work runs
        "the push never arrives on my iPhone",
        "rebase my branch and force push it",
        "il mio primo deploy è fallito, cosa controllo?",  # primo: first, not cousin
        "ma il medico non vede l'appuntamento nel calendario",  # ma: but
        "add a family field to the patient form",
        "the doctor's calendar shows the slot twice",
        "¿en mi país la factura electrónica es obligatoria?",
        "meu pessoal não consegue fazer login",  # pessoal: my team
    ):
        assert skip(prompt, personal=True) is None, prompt


def test_task_requests_are_recognised_in_every_builtin_language() -> None:
    for prompt in (
        "add a reminder_sent_at column to appointments",
        "Please write the migration for the new table",
        "can you fix the flaky booking spec?",
        "aggiungi il campo sconto alla riga della fattura",
        "añade un test de sistema para la pantalla de reservas",
        "Ajoute une colonne au modèle",
        "Füge einen Index hinzu",
        "crie um endpoint para cancelar",
    ):
        assert policy.asks_for_work(prompt), prompt
    for prompt in (
        "how do we add columns to big tables?",
        "why did the fix break the build?",
        "the new build fails on CI",
        "cosa aggiungiamo alla release?",
    ):
        assert not policy.asks_for_work(prompt), prompt


def test_a_task_request_may_follow_what_the_user_saw() -> None:
    # the request often comes after the problem: its own clause opens with the verb
    for prompt in (
        "the export is slow on big accounts. Can you make it stream the rows?",
        "il login si blocca dopo il timeout, correggi il refresh del token",
        "the parser module has grown to 900 lines; split it into one file per format",
        "the settings page looks empty - add a hint under each field",
    ):
        assert policy.asks_for_work(prompt), prompt
    for prompt in (
        "the export is slow on big accounts, what did we change in March?",
        "we split the parser last week, why is the build slower?",
        "il login si blocca dopo il timeout, da cosa dipende?",
    ):
        assert not policy.asks_for_work(prompt), prompt


def test_creative_gate_leaves_project_work_alone() -> None:
    for prompt in (
        "write the release notes for the push song feature",
        "write the joke endpoint tests",
        "add a joke-of-the-day endpoint to the API",
        "write a user story for the poem importer",
        "scrivi i test per l'export CSV",
        "the poem field overflows on the card, can you fix it?",
    ):
        assert skip(prompt, creative=True) is None, prompt


def test_general_knowledge_questions_get_no_memory_in_every_builtin_language() -> None:
    for prompt in (
        "what's the difference between cargo check and cargo build?",
        "What is the difference between a process and a thread",
        "can you explain what a trait object is?",
        "explain what the question mark operator does with Option",
        "is it better to return impl Iterator or Box<dyn Iterator>?",
        "qual è la differenza tra IRPEF e IRAP?",
        "spiegami cosa fa questa espressione regolare",
        "mi spieghi in breve la differenza tra mutuo a tasso fisso e variabile?",
        "can you explain in plain words the difference between a mutex and a semaphore?",
        "spiegami in parole semplici cosa fa un indice GIN",
        "explain in two sentences what a materialized view is",
        "che differenza c'è tra un clone e una replica del database?",
        "¿qué diferencia hay entre TCP y UDP?",
        "¿cuál es la diferencia entre TCP y UDP?",
        "explique-moi ce que fait cette expression régulière",
        "erklär mir, was ein Mutex ist",
        "é melhor usar REST ou GraphQL?",
    ):
        assert skip(prompt, general=True) == policy.GENERAL, prompt
        assert skip(prompt) is None  # the reference has no such gate


def test_general_gate_leaves_questions_about_the_project_alone() -> None:
    for prompt in (
        "explícame cómo darle a la cuenta de servicio de metabase permiso de lectura",
        "explain to Sofia why we chose multipart uploads",
        "what was the difference between the first and the second fix of the deadlock?",
        "what does SDI error code 00305 mean?",
        "Dana asked me to explain things before changing the async uploader code",
        "explain how our deploy works to the new contractor",
        "spiegami come funziona il rinnovo delle tessere",
        "is the catalog migration in 0.5 better than the old one?",
        "la differenza tra le due release è nel changelog?",
        "che differenza fa se lancio il backfill in staging prima?",
    ):
        assert skip(prompt, general=True) is None, prompt
