"""When recall speaks and how much: prompt gates, the anchor rule, floors, top-k, budget.

All rules are the reference's (agd-memory-plugin §5.4) unless a measured change
(`eval/features.py`) changes them; each function says which.
"""

from __future__ import annotations

import math
import re
from collections import namedtuple
from collections.abc import Sequence

from .scoring import Match
from .text import fold

# Skip reasons, as the reference names them (they reach the debug log and `recall --json`).
DISABLED = "disabled_via_env"
EMPTY = "prompt_empty"
TOO_LONG = "prompt_too_long"
CODE_PASTE = "code_paste_detected"
CREATIVE = "creative_request"
PERSONAL = "personal_life"
GENERAL = "general_question"
BELOW_MIN_WORDS = "prompt_below_min_words"
NO_MEMORY = "memory_file_missing"
NO_BLOCKS = "no_blocks_loaded"
NO_MATCH = "no_relevant_blocks"
BUDGET = "budget_exhausted"

CODE_FENCE = "```"
CODE_MIN_LINES = 5
CHARS_PER_TOKEN = 4


# Named tuples, not dataclasses or `typing.NamedTuple`: the prompt hook imports this module
# in every process; `dataclasses` costs ~8 ms to import, `typing` 3-5 ms.


class Gates(
    namedtuple(
        "Gates",
        "disabled max_prompt_chars code_line_ratio min_words code_syntax creative personal general",
        defaults=(False, 4000, 0.4, 3, False, False, False, False),
    )
):
    """The settings the prompt gates read (a view of `Settings`).

    `disabled` (bool), `max_prompt_chars` (int), `code_line_ratio` (float), `min_words`
    (int); `code_syntax` (bool): also count lines that read as code, not only indented
    ones; `creative` (bool): a request for a poem, song or joke gets no memory; `personal`
    (bool): a prompt about the user's family, friends, pets or doctor gets no memory;
    `general` (bool): a question of general knowledge (`what's the difference between X
    and Y`, `explain ...`) gets no memory."""

    __slots__ = ()

    disabled: bool
    max_prompt_chars: int
    code_line_ratio: float
    min_words: int
    code_syntax: bool
    creative: bool
    personal: bool
    general: bool


CODE_LINE = re.compile(
    r"^\s*(?:def|class|import|from|return|function|const|let|var|fn|func|package|"
    r"#include|print|console\.log|SELECT|INSERT|UPDATE)\b|[:{};)\]]\s*$"
)
"""code-syntax: a line that reads as code: opening with a keyword, or ending with what
ends a statement or opens a block (indentation alone is the line-ratio rule's business)."""
SYNTAX_MIN_LINES = 3
SYNTAX_SHARE = 0.5


def looks_like_code(prompt: str, line_ratio: float, *, syntax: bool = False) -> bool:
    """A fence anywhere, or 5+ non-blank lines of which at least `line_ratio` are indented.
    With `syntax`, also 3+ non-blank lines of which half read as code (`CODE_LINE`): a
    short snippet pasted above a question."""
    if CODE_FENCE in prompt:
        return True
    lines = [line for line in prompt.splitlines() if line.strip()]
    if syntax and len(lines) >= SYNTAX_MIN_LINES:
        code = sum(1 for line in lines if CODE_LINE.search(line))
        if code >= 2 and code / len(lines) >= SYNTAX_SHARE:
            return True
    if len(lines) < CODE_MIN_LINES:
        return False
    indented = sum(1 for line in lines if line[:1] in (" ", "\t"))
    return indented / len(lines) >= line_ratio


CREATIVE_PATTERN = (
    r"^\W*(?:please\W+|per favore\W+|por favor\W+|bitte\W+|s'il te plait\W+)?"
    r"(?:write|compose|make up|give me|tell me|scrivi|scrivimi|componi|inventa|dimmi|"
    r"raccontami|escribe|escribeme|componme|cuentame|dime|ecris|ecris-moi|compose-moi|"
    r"raconte-moi|schreib|schreibe|schreib mir|erzahl|erzahle|escreva|escreve|conta-me)\b"
    r"(?:\W+(?:me|mi|moi|mir|a|an|one|un|una|uno|une|ein|eine|einen|um|uma|short|little|"
    r"funny|nice|breve|piccola|bella|divertente|corta|pequeno|petit|petite|kurzes|lustiges))*"
    r"\W+"
    r"(?:haiku|poem|poesia|poesie|poeme|poema|gedicht|sonnet|sonetto|soneto|limerick|"
    r"song|canzone|cancion|chanson|lied|cancao|filastrocca|rhyme|joke|barzelletta|chiste|"
    r"blague|witz|piada)s?\b"
)
"""creative: the prompt opens by asking for a poem, a song, a rhyme or a joke, in one of
the built-in languages (matched on the folded prompt). Memory has nothing to add to one,
whatever its subject: `write a haiku about push notifications` is not about the project's
push set-up. Stories are left out on purpose (a user story is project work)."""

_FIRST_WORD = re.compile(r"\W*(\w+)")


class OpeningPattern:
    """A pattern matched on a folded prompt's start, compiled on first use: only a prompt
    whose first word is one of `openers` (every first word the pattern can match) is
    searched. Nearly every prompt opens with another word, and compiling one of these
    patterns costs the prompt hook about a millisecond."""

    def __init__(self, pattern: str, openers: str) -> None:
        self.pattern = pattern
        self.openers = frozenset(openers.split())
        self._compiled: re.Pattern[str] | None = None

    def matches(self, folded: str) -> bool:
        first = _FIRST_WORD.match(folded)
        if first is None or first.group(1) not in self.openers:
            return False
        if self._compiled is None:
            self._compiled = re.compile(self.pattern)
        return self._compiled.search(folded) is not None


CREATIVE_START = OpeningPattern(
    CREATIVE_PATTERN,
    """please per por bitte s write compose make give tell scrivi scrivimi componi inventa
    dimmi raccontami escribe escribeme componme cuentame dime ecris raconte schreib schreibe
    erzahl erzahle escreva escreve conta""",
)


def asks_for_creative_text(folded: str) -> bool:
    """creative: `folded` (a folded prompt's start) matches `CREATIVE_PATTERN`."""
    return CREATIVE_START.matches(folded)


PERSONAL_WORDS: tuple[tuple[str, str, bool], ...] = (
    (  # en
        "my",
        "kid kids son sons daughter daughters child children wife husband girlfriend boyfriend "
        "mom mum mother dad father parents grandma grandpa grandmother grandfather grandparents "
        "cousin cousins uncle aunt brother brothers sister sisters nephew niece friend friends "
        "neighbour neighbours neighbor neighbors family dog cat dentist doctor hobby personal "
        "car cars bank flight flights bathroom teacher house flat apartment garden bike "
        "landlord gym",
        True,
    ),
    (  # it
        "mio mia miei mie",
        "figlio figlia figli figlie bambino bambina bambini bambine moglie marito fidanzato "
        "fidanzata mamma madre papa padre genitori nonno nonna nonni nonne cugino cugina cugini "
        "cugine zio zia zii zie fratello fratelli sorella sorelle nipote nipoti amico amica "
        "amici amiche famiglia cane gatto medico dentista auto banca volo bagno insegnante "
        "casa appartamento giardino bici palestra",
        True,
    ),
    (  # es: `mi` is also Italian, so the noun must follow at once
        "mi mis",
        "hijo hija hijos hijas nino nina ninos ninas esposo esposa marido novio novia mama "
        "madre papa padre padres abuelo abuela abuelos primo prima primos primas tio tia tios "
        "hermano hermana hermanos hermanas sobrino sobrina amigo amiga amigos amigas vecino "
        "vecina vecinos familia perro gato medico dentista",
        False,
    ),
    (  # fr: `ma` is Italian, `mes` Spanish
        "mon ma mes",
        "enfant enfants fils fille filles femme mari mere pere parents grand-pere grand-mere "
        "cousin cousine oncle tante frere soeur ami amie amis amies voisin voisine copain "
        "copine famille chien chat dentiste medecin",
        False,
    ),
    (  # de
        "mein meine meinen meinem meiner meines",
        "kind kinder sohn tochter frau mann mutter vater eltern opa oma cousin cousine onkel "
        "tante bruder schwester freund freundin freunde nachbar nachbarn familie hund katze "
        "zahnarzt arzt",
        True,
    ),
    (  # pt
        "meu minha meus minhas",
        "filho filha filhos filhas crianca esposo esposa marido mulher mae pai avo avos primo "
        "prima primos tio tia irmao irmaos irma irmas namorado namorada amigo amiga amigos "
        "vizinho vizinha familia cachorro cao gato medico dentista",
        True,
    ),
)
"""personal: per language, the first-person possessives, the nouns of private life (family,
friends, pets, the family doctor, house, car, bank; `personal` in English) and
whether one word may stand between them (`my little sister`, `la mia vecchia nonna`, `my own
car's brakes`). Devices (`my laptop`, `my phone`) are left out on purpose: project work runs
on them. The English and Italian nouns from car on were chosen on four sets run once to
decide them (benchmarks/README.md, issue 26's eighth pass)."""
_PERSONAL = [
    (frozenset(own.split()), frozenset(nouns.split()), gap) for own, nouns, gap in PERSONAL_WORDS
]
_WORD = re.compile(r"[\w-]+")


def about_private_life(prompt: str) -> bool:
    """personal: the prompt talks about the user's private life (`my dentist keeps double
    booking me`, `mio cugino ha la partita IVA`, `mi abuelo tiene olivos`). Memory is about
    the project; such a question is not, even when it shares the project's words."""
    words = _WORD.findall(fold(prompt[:300]))  # `kid's` gives `kid`, `s`
    for i, w in enumerate(words):
        for own, nouns, gap in _PERSONAL:
            if w in own and not nouns.isdisjoint(words[i + 1 : i + (3 if gap else 2)]):
                return True
    return False


GENERAL_PATTERN = (
    r"^\W*(?:(?:can|could|would) you\W+|please\W+|puoi\W+|potresti\W+|mi\W+|"
    r"(?:me\W+)?(?:puedes|podrias)\W+|(?:peux|pourrais)-tu\W+|kannst du\W+|"
    r"(?:voce\W+)?(?:pode|podes)\W+)?"
    r"(?:explain|spiegami|spieghi|spiegare|explicame|explica|explicar|explique|expliquer|"
    r"erklar|erklare|erklaren)\W+(?:(?:me|mi|moi|mir)\W+)?"
    r"(?:(?:in breve|briefly|brevemente|simply|in plain words|in simple terms|"
    r"in parole semplici|in due parole|in poche parole|en pocas palabras|"
    r"in (?:one|two|three|a few) (?:sentences?|words|lines)|"
    r"in (?:una|due|tre|poche) (?:frasi|frase|righe|parole))\W+)?"
    r"(?:what|cosa|che cosa|cos'e|que|ce que|was|o que|the difference|la differenza|"
    r"la diferencia|la difference|den unterschied|a diferenca)\b"
    r"|^\W*(?:what['\u2019]?s|what is|qual e|quale e|cual es|quelle est|was ist|qual e a) "
    r"(?:the |la |a )?(?:difference|differenza|diferencia|difference|unterschied|diferenca)"
    r" (?:between|tra|fra|entre|zwischen)\b"
    r"|^\W*(?:che differenza c['\u2019 ]?e|que diferencia hay|que diferenca ha) "
    r"(?:tra|fra|entre)\b"
    r"|^\W*(?:is it better|would it be better|e meglio|conviene|es mejor|vaut-il mieux|"
    r"ist es besser|e melhor) "
)
"""general: the prompt opens by asking for general knowledge: an explanation of what
something is (`can you explain what a trait object is`, `spiegami cosa fa questa
espressione`; `explain how the deploy works` may be about the project's own and passes), the difference between two things (`what's
the difference between cargo check and cargo build`), or which of two ways is better (`is
it better to return impl Iterator or Box<dyn Iterator>`), in the six built-in languages
(matched on the folded prompt). What a language or a tool does is not what the project
decided; a question about the project's past (`what was the difference between ...`) is
not matched."""
GENERAL_START = OpeningPattern(
    GENERAL_PATTERN,
    """can could would please puoi potresti mi me puedes podrias peux pourrais kannst voce
    pode podes explain spiegami spieghi spiegare explicame explica explicar explique
    expliquer erklar erklare erklaren what whats qual quale cual quelle was is e conviene
    es vaut ist che que""",
)


def asks_general_question(folded: str) -> bool:
    """general: `folded` (a folded prompt's start) matches `GENERAL_PATTERN`."""
    return GENERAL_START.matches(folded)


_POLITE = ("please", "per favore", "por favor", "bitte", "s'il te plait", "can you", "could you",
           "puoi", "potresti", "puedes", "podrias", "peux-tu", "pourrais-tu", "kannst du", "pode",
           "podes", "voce pode")  # fmt: skip
_TASK_VERBS = """add write create fix implement refactor rename update build remove delete change handle
    show make migrate generate move replace convert extract set split run launch execute
    aggiungi scrivi crea sistema correggi implementa rinomina aggiorna rimuovi elimina cambia
    mostra fai genera sposta sostituisci converti gestisci dividi lancia esegui avvia
    anade agrega escribe arregla corrige renombra actualiza quita muestra haz mueve reemplaza
    convierte gestiona aplica ejecuta lanza
    ajoute ecris cree implemente renomme supprime affiche fais genere deplace remplace lance execute
    fuge schreib schreibe erstelle behebe implementiere benenne aktualisiere entferne losche
    andere zeige mach verschiebe ersetze starte
    adicione adiciona escreva escreve crie cria corrija implemente renomeie atualize remova
    apague mude mostre faca mova substitua execute rode"""
TASK_VERBS = frozenset(_TASK_VERBS.split())
"""task-feedback: verbs that open a request for work, in the six built-in languages (folded)."""


def asks_for_work(prompt: str) -> bool:
    """task-feedback: a clause of the prompt opens by asking for work to be done (`add
    ...`, `can you fix ...`, `aggiungi ...`, `añade ...`), often after what the user saw
    (`the export is slow, make it stream`), or the prompt asks how to do something without
    referring to the team's past (`how do I ...`, `come si ...`: `HOW_TO`). The project's
    rules of work (feedback entries: conventions, corrections) are what applies to a task,
    more than the facts that merely share its words."""
    parts = clauses(prompt[:400])
    if any(_opens_with_task_verb(clause) for clause in parts):
        return True
    return any(_opens_with(fold(c).lstrip(), HOW_TO) for c in parts) and cue_of(prompt) != "past"


HOW_TO = (
    "how do i", "how can i", "how should i", "how would i", "how to",
    *(f"what{s} the {a} way" for s in ("'s", "s") for a in ("best", "easiest", "cleanest", "right")),
    "come si", "come faccio", "come posso", "come devo", "qual e il modo",
)  # fmt: skip
"""task-facts: a clause that opens by asking how to do something (folded) is a request for
work in the form of a question (a third round of issue 26's seventh pass,
benchmarks/README.md; English and Italian); `da come si faceva` inside a clause is not.
Plain strings, not a regular expression: the prompt hook compiles nothing it can avoid."""


def _opens_with(text: str, phrases: Sequence[str]) -> bool:
    """`text` starts with one of `phrases`, as whole words."""
    return any(
        text.startswith(p) and not text[len(p) : len(p) + 1].isalnum() for p in phrases
    )


def _opens_with_task_verb(clause: str) -> bool:
    text = fold(clause).lstrip(" \t\n\"'`([{*-#>")
    for polite in _POLITE:
        if text.startswith(polite + " ") or text.startswith(polite + ","):
            text = text[len(polite) + 1 :].lstrip(" ,")
            break
    first = _WORD.match(text)
    return first is not None and first.group() in TASK_VERBS


CLAUSE_BREAK = re.compile(
    r"[.?!;:]+(?:\s|$)|\s[\u2014\u2013-]\s|,\s*(?:(?:and|but|or|e|ma|o|oppure|y|pero|et|mais|und|aber|oder|mas|ou)\s)?"
)
"""parts: where a prompt's clauses meet: sentence ends, colons and semicolons, dashes
between spaces, commas (with the conjunction after one, in the six languages)."""


def clauses(prompt: str) -> list[str]:
    """The clauses of a prompt (`we debugged the timezone bug - what was the error, which
    function, what was the fix?` has four)."""
    return [c for c in CLAUSE_BREAK.split(prompt) if c.strip()]


_OWN_CUE = "we our us nostro nostra nostri nostre ci"
OWN_CUE = frozenset(_OWN_CUE.split())
"""cue-own: the words by which a prompt speaks of the team's own (`our deploy`, `we need a
flag`): it is about the project, not always about its past (`our Caddy setup returns 404,
how do I serve a static robots.txt?`). A weaker cue than PAST_CUE's other words (a fourth
round of issue 26's eighth pass, benchmarks/README.md). English and Italian only, where it
was measured: the other languages' lists hold few words of the past (`decidimos` is not
one), and their possessives stay in PAST_CUE."""
_PAST_CUE = """did was were last decided remind again
    abbiamo eravamo avevamo era erano deciso ricordi ricordami scorso scorsa volta
    before previous previously earlier already ago yesterday
    prima precedente precedenti gia ieri
    nosotros nuestro nuestra nuestros nuestras pasado pasada nous notre nos dernier derniere
    wir uns unser unsere unseren unserem unserer unseres letzte letzten letztem letzter letztes
    nosso nossa nossos nossas passado passada"""
PAST_CUE = frozenset(_PAST_CUE.split()) | OWN_CUE
"""cue: words by which a prompt refers to the team's own past (`what did we decide`,
`l'ultima volta`, `the error from yesterday`), with OWN_CUE's: what a memory holds, more
than a task's words do. The English and Italian words were measured (benchmarks/README.md,
issue 26's seventh pass: the words of time, before to ieri, in a second round);
the Spanish, French, German and Portuguese ones (we, our, last) were not: without them
every prompt in those languages would need the higher share. Folded words, not a regular
expression: the prompt hook compiles nothing it can avoid (this one took 0.9 ms)."""
_WORDS = re.compile(r"\w+")


def cue_of(prompt: str) -> str | None:
    """cue, cue-own: "past" when a word of the prompt refers to the team's past (`did`,
    `last`, `ieri`), "own" when its only cue words speak of the team's own (`our`, `we`),
    None without either."""
    words = set(_WORDS.findall(fold(prompt)))
    if PAST_CUE.isdisjoint(words):
        return None
    return "own" if words & PAST_CUE <= OWN_CUE else "past"


WHERE_QUESTION = re.compile(r"\b(?:where|dove|d[oó]nde|où|wo|onde)\b", re.IGNORECASE)
"""where-reference: the prompt asks where something is (en, it, es, fr, de, pt).
A reference entry says where to look: a link, a folder, a manual."""


def should_skip(
    prompt: str,
    words: Sequence[str],
    gates: Gates,
) -> str | None:
    """The first gate that refuses the prompt, or None. `words` are the prompt's content
    words (length filter and stopwords applied, duplicates kept). A prompt below the word
    minimum that names a block (`deploy script`) is let through by the engine
    (`engine.gate`, short-gate): only it has the index."""
    if gates.disabled:
        return DISABLED
    if not prompt or not prompt.strip():
        return EMPTY
    if len(prompt) > gates.max_prompt_chars:
        return TOO_LONG
    if looks_like_code(prompt, gates.code_line_ratio, syntax=gates.code_syntax):
        return CODE_PASTE
    if gates.creative and asks_for_creative_text(fold(prompt[:200])):
        return CREATIVE
    if gates.personal and about_private_life(prompt):
        return PERSONAL
    if gates.general and asks_general_question(fold(prompt[:200])):
        return GENERAL
    if len(words) < gates.min_words:
        return BELOW_MIN_WORDS
    return None


class Ranking(
    namedtuple(
        "Ranking",
        "top_k min_score min_score_ratio require_anchor skip_superseded fuzzy_anchor_min",
        defaults=(3, 0.6, 0.35, True, True, 2),
    )
):
    """The settings ranking reads (a view of `Settings`)."""

    __slots__ = ()

    top_k: int
    min_score: float
    min_score_ratio: float
    require_anchor: bool
    skip_superseded: bool
    fuzzy_anchor_min: int


def sort_key(match: Match) -> tuple[float, int, int, str]:
    """Rank score (high first), then newest `updated`, then shorter body, then id."""
    doc = match.doc
    return (-match.rank_score, -doc.recency, doc.body_chars, doc.id)


def above_floors(match: Match, best: Match, ranking: Ranking) -> bool:
    """The floors: the absolute one on the block's score, the ratio of the best one's on
    its rank score."""
    return (
        match.score >= ranking.min_score
        and match.rank_score >= best.rank_score * ranking.min_score_ratio
    )


def anchored(match: Match, fuzzy_anchor_min: int) -> bool:
    """The anchor rule: an exact prompt word in the id or desc, or enough cognates there.

    A `fuzzy_anchor_min` of 0 or less turns the rule off (as in the reference).
    """
    if fuzzy_anchor_min <= 0:
        return True
    return bool(match.anchor_exact) or len(match.anchor_cognates) >= fuzzy_anchor_min


def rank(matches: Sequence[Match], ranking: Ranking) -> list[Match]:
    """Drop zero scores, superseded and unanchored blocks; sort; apply the floors; keep top k."""
    kept = []
    for m in matches:
        if m.score <= 0:
            continue
        if ranking.skip_superseded and m.doc.status == "superseded":
            continue
        if ranking.require_anchor and not anchored(m, ranking.fuzzy_anchor_min):
            continue
        kept.append(m)
    if not kept:
        return []
    kept.sort(key=sort_key)
    return [m for m in kept[: max(ranking.top_k, 0)] if above_floors(m, kept[0], ranking)]


def fit_budget(sizes: Sequence[int], budget_chars: int) -> int:
    """How many blocks, taken in order, fit in `budget_chars` (reference rule).

    The first block always goes in; the walk stops (it does not skip ahead) at the
    first block that would overflow, and once the total reaches the budget.
    """
    total = 0
    count = 0
    for size in sizes:
        if count and total + size > budget_chars:
            break
        total += size
        count += 1
        if total >= budget_chars:
            break
    return count


def estimate_tokens(chars: int) -> int:
    """Tokens of injected text, estimated at 4 characters a token (rounded up)."""
    return math.ceil(chars / CHARS_PER_TOKEN)
