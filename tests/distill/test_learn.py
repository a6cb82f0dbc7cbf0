"""Learning the user's words from the model's lookups (distill/learn.py), replayed.

Each pair is two paraphrases of one question over a small project memory. The first
misses auto-recall, the model looks the entry up itself (`agd_memory_get`, or the best hit
of `agd_memory_search`), the session ends, and the worker asks the (fake) model for the
user's words of that entry; the fake answers as a model would from the prompt it is sent.
The second paraphrase must then be recalled."""

from __future__ import annotations

import json
import time

import pytest
from distill_records import result, say, tool, user, write_transcript

from agd_memory import recall, store
from agd_memory.distill import learn, review, state, worker
from agd_memory.store import rules

MCP = "mcp__plugin_agd-memory_agd-memory__"

MEMORY = [
    ("x-project", "deploy-flow", "Deploys go through the blue-green switch on the load balancer",
     "Run make release; the switch flips traffic after health checks pass.",
     ["deployment", "release", "blue green", "rollout", "load balancer"]),
    ("x-feedback", "money-decimal", "Money amounts are Decimal, never float",
     "Prices, discounts and totals use decimal.Decimal with two places.",
     ["price", "currency", "rounding", "discount", "totals"]),
    ("x-project", "ci-matrix", "CI runs the test matrix on Python 3.11 and 3.12",
     "GitHub Actions, tox environments py311 and py312.",
     ["continuous integration", "github actions", "tox", "pipeline"]),
    ("x-user", "user-priya", "Priya leads mobile and signs off store releases",
     "Ask her before any App Store submission.", ["mobile lead", "app store", "ios", "android"]),
    ("x-project", "tz-bug", "Timestamps are stored in UTC, rendered in the user's zone",
     "The March bug: naive datetimes shifted reports by one hour at DST.",
     ["timezone", "utc", "daylight saving", "datetime"]),
]  # fmt: skip

# (entry, first paraphrase, second paraphrase, the user's words a model would pick)
PAIRS = [
    ("tz-bug",
     "why did the nightly numbers in the weekly report come out an hour off after the clocks changed?",
     "the clocks changed and the report is an hour off again, what was that about?",
     ["clocks changed", "hour off"]),
    ("deploy-flow",
     "when we push the new build live, what exactly flips the traffic over?",
     "push the new build live: which step flips traffic?",
     ["build live", "push"]),
    ("user-priya",
     "who has to approve before we ship the phone app?",
     "before we ship the phone app update, who approves?",
     ["phone app", "approve"]),
    ("money-decimal",
     "perché lo scontrino stampato mostra spiccioli sbagliati?",
     "di nuovo spiccioli sbagliati sullo scontrino, cosa avevamo deciso?",
     ["scontrino", "spiccioli"]),
]  # fmt: skip

UNRELATED = ("fix the typo in the README's install section", "ci-matrix")


@pytest.fixture
def project(env):
    cwd = env.project("shop")
    mf = store.MemoryFile(env.memory_file(cwd), layer="project", settings=env.settings())
    for kind, block_id, desc, body, keys in MEMORY:
        mf.save(kind, block_id, body, desc=desc, keys=keys)
    return cwd, mf


def recalled(mf, prompt: str) -> list[str]:
    return [str(s.entry.id) for s in recall.recall(prompt, [mf], mf.settings).chosen]


def lookup_turn(prompt: str, block_id: str, *, search: bool = False) -> list[dict]:
    if search:
        call = tool(MCP + "agd_memory_search", query=prompt[:40])
        call["message"]["content"][0]["id"] = f"toolu_{block_id}"
        found = result(
            f'search "{prompt[:40]}" (scope all): 1 hits, best first\n#{block_id} (x-project, project) score 3.10'
        )
        found["message"]["content"][0]["tool_use_id"] = f"toolu_{block_id}"
        return [user(prompt), call, found, say("Found it in memory.")]
    return [
        user(prompt),
        tool(MCP + "agd_memory_get", id=block_id),
        result(f"#{block_id} (x-project) [project layer]"),
        say("Here is what the memory says."),
    ]


def end(env, cwd, records: list[dict], name: str = "s1") -> str:
    path = write_transcript(env.root / "t" / f"{name}.jsonl", records)
    item = state.Pending(str(path), name, str(cwd), "prompt_input_exit", time.time())
    state.add_pending(env.settings(), item)
    worker.run(env.settings(), item.key, sleep=lambda s: None)
    return str(path)


def learn_calls(fake_claude) -> list[dict]:
    return [c for c in fake_claude.calls() if "<lookups>" in c.get("stdin", "")]


def test_the_second_paraphrase_is_recalled_after_the_model_looked_the_first_up(
    env, fake_claude, project
) -> None:
    cwd, mf = project
    for block_id, first, second, _ in PAIRS:
        assert block_id not in recalled(mf, first), first
        assert block_id not in recalled(mf, second), second
    records = []
    for n, (block_id, first, _, _) in enumerate(PAIRS):
        records += lookup_turn(first, block_id, search=n % 2 == 1)
    records += lookup_turn(*UNRELATED)
    answer = {block_id: [*words, "dst"] for block_id, _, _, words in PAIRS}
    answer[UNRELATED[1]] = []  # the model sees the fetch was not about the prompt
    fake_claude.script(fake_claude.keys_answer(answer), {"proposals": []})
    keys_before = {e.id: e.attrs.get("keys") for e in mf.entries()}
    updated_before = {e.id: e.attrs.get("updated") for e in mf.entries()}

    path = end(env, cwd, records)

    (call,) = learn_calls(fake_claude)
    for block_id, first, _, _ in PAIRS:
        assert f'<entry id="{block_id}"' in call["stdin"] and first.split()[1] in call["stdin"]
    hits = [block_id for block_id, _, second, _ in PAIRS if block_id in recalled(mf, second)]
    assert hits == [p[0] for p in PAIRS], f"{len(hits)} of {len(PAIRS)} pairs went from miss to hit"
    after = {e.id: e for e in mf.entries()}
    for block_id, _, _, words in PAIRS:
        keys = [k.strip() for k in after[block_id].attrs["keys"].split(",")]
        assert keys[: len(words)] == words, "the user's words come first"
        assert "dst" not in keys, "a word the user never typed is not learned"
        assert after[block_id].attrs.get("updated") == updated_before[block_id]
    assert after["ci-matrix"].attrs.get("keys") == keys_before["ci-matrix"]

    # the session ends again (resumed, nothing new): nothing is asked twice
    again = state.Pending(path, "s1", str(cwd), "resume", time.time())
    state.add_pending(env.settings(), again)
    worker.run(env.settings(), again.key, sleep=lambda s: None)
    assert len(learn_calls(fake_claude)) == 1


def test_a_lookup_recall_already_answers_or_an_unrelated_one_teaches_nothing(
    env, fake_claude, project
) -> None:
    cwd, mf = project
    known = "what are the tox environments of the CI matrix?"
    assert "ci-matrix" in recalled(mf, known)
    fake_claude.script(fake_claude.keys_answer({"ci-matrix": ["typo", "readme"]}))
    before = mf.path.read_bytes()

    end(env, cwd, lookup_turn(known, "ci-matrix"))
    assert learn_calls(fake_claude) == [], "recall offers it: no model call"

    end(env, cwd, lookup_turn(*UNRELATED), name="s2")
    assert len(learn_calls(fake_claude)) == 1
    keys = mf.entry("ci-matrix").attrs["keys"]
    assert keys.startswith("typo, readme"), "what the model vets is written"
    # ...and the model's no is respected
    mf.path.write_bytes(before)
    fake_claude.script(fake_claude.keys_answer({"ci-matrix": []}))
    end(env, cwd, lookup_turn(*UNRELATED), name="s3")
    assert mf.path.read_bytes() == before


def test_at_most_four_keys_per_entry_and_session_and_the_rest_make_room(
    env, fake_claude, project
) -> None:
    cwd, mf = project
    full = [f"term{n}" for n in range(rules.MAX_KEYS)]
    mf.set_keys({"tz-bug": full})
    prompt = "the clocks changed weekly nightly numbers report hour off again after summer"
    typed = ["clocks", "weekly", "nightly", "numbers", "report", "summer"]
    fake_claude.script(fake_claude.keys_answer({"tz-bug": typed}))

    end(env, cwd, lookup_turn(prompt, "tz-bug"))

    keys = [k.strip() for k in mf.entry("tz-bug").attrs["keys"].split(",")]
    assert keys[:4] == typed[:4] and len(keys) == rules.MAX_KEYS and keys[4:] == full[:-4]


def test_in_review_mode_the_learned_keys_wait_in_the_queue(
    env, fake_claude, project, monkeypatch
) -> None:
    cwd, mf = project
    monkeypatch.setenv("AGD_DISTILL_REVIEW", "1")
    block_id, first, _, words = PAIRS[0]
    fake_claude.script(fake_claude.keys_answer({block_id: words}))
    before = mf.path.read_bytes()

    end(env, cwd, lookup_turn(first, block_id))

    assert mf.path.read_bytes() == before
    (item,) = [i for i in review.pending(mf) if i.op == "keys"]
    assert item.keys[block_id][:2] == words


def test_lookups_reads_each_turn_and_skips_history_lookups() -> None:
    records = [
        user("first question about deploys"),
        tool(MCP + "agd_memory_get", ids=["deploy-flow", "#ci-matrix"]),
        tool(MCP + "agd_memory_get", id="h-s1-3", scope="history"),
        user("second question"),
        say("no lookup here"),
    ]
    found = learn.lookups(json.loads(json.dumps(records)))
    assert [(f.prompt, f.ids) for f in found] == [
        ("first question about deploys", ["deploy-flow", "ci-matrix"])
    ]


# A second memory and set of pairs, with a fake model that answers from the prompt it is
# sent: it knows groups of synonyms (as a model knows words), judges a request to be about
# an entry when one of its groups meets a word of the entry, and picks the request's words
# of those groups. Nothing in the answer is scripted per pair.
MEMORY_2 = [
    ("x-project", "gunicorn-restart", "Production 502 errors: restart the gunicorn workers",
     "When prod answers 502, run systemctl restart app-gunicorn; the workers leak memory.",
     ["502", "gunicorn", "workers restart"]),
    ("x-feedback", "money-decimal", "Money amounts use Decimal, never float",
     "Prices and totals are decimal.Decimal; float rounding broke invoices in March.",
     ["decimal", "float", "prices"]),
    ("x-project", "release-signing", "iOS builds are signed by fastlane match",
     "Certificates live in the match repo; run fastlane match appstore before archiving.",
     ["fastlane", "certificates", "ios build"]),
    ("x-project", "flaky-e2e", "Playwright suite retries twice on CI",
     "The e2e suite is flaky on CI runners; playwright retries=2 in playwright.config.ts.",
     ["playwright", "e2e", "retries"]),
    ("x-user", "user-lena", "Lena owns the billing service",
     "Ask Lena before changing anything in services/billing; she is on call for it.",
     ["lena", "billing service"]),
    ("x-project", "db-migrations", "Alembic migrations run in the deploy job",
     "Never run alembic upgrade by hand in prod; the deploy job applies migrations.",
     ["alembic", "migrations", "schema change"]),
]  # fmt: skip

LEXICON = [
    ["gunicorn", "website", "site", "blank", "dead", "hangs", "frozen"],
    ["decimal", "cents", "pennies", "rounding", "money"],
    ["fastlane", "signing", "certificates", "testflight", "iphone", "app"],
    ["playwright", "flaky", "browser", "tests", "randomly", "intermittent"],
    ["billing", "invoices", "subscriptions", "charges", "owner", "payments"],
    ["alembic", "migrations", "table", "column", "columns", "tables"],
]

# (entry, first paraphrase, a later paraphrase of the same need)
PAIRS_2 = [
    ("gunicorn-restart", "the website is dead again and shows a blank page to everyone",
     "website went blank and dead for customers this morning"),
    ("money-decimal", "the totals are off by a few pennies after the cents rounding",
     "pennies missing again, cents rounding looks wrong"),
    ("release-signing", "testflight upload fails, something about signing the iphone app",
     "iphone testflight upload broke again"),
    ("flaky-e2e", "the browser tests fail randomly on the pipeline, intermittent",
     "browser tests randomly red, intermittent failures"),
    ("user-lena", "who should I talk to about the subscriptions and charges code",
     "I want to touch subscriptions charges, who do I ask"),
    ("db-migrations", "I need to add a column to the users table",
     "adding two columns to the orders table"),
]  # fmt: skip


def test_pairs_go_from_miss_to_hit_with_a_model_answering_from_the_prompt(
    env, fake_claude, capsys
) -> None:
    cwd = env.project("ops")
    mf = store.MemoryFile(env.memory_file(cwd), layer="project", settings=env.settings())
    for kind, block_id, desc, body, keys in MEMORY_2:
        mf.save(kind, block_id, body, desc=desc, keys=keys)
    fake_claude.script({"lexicon": LEXICON})
    for block_id, first, second in PAIRS_2:
        assert block_id not in recalled(mf, first), first
        assert block_id not in recalled(mf, second), second
    # a lookup the request is not about: the model finds no word of it for the entry
    unrelated = "rename the helper in utils.py to something clearer"
    end(env, cwd, lookup_turn(unrelated, "money-decimal"), "s0")
    assert len(learn_calls(fake_claude)) == 1
    assert mf.entry("money-decimal").attrs["keys"] == "decimal, float, prices"

    for n, (block_id, first, _) in enumerate(PAIRS_2, 1):
        end(env, cwd, lookup_turn(first, block_id, search=n % 2 == 0), f"s{n}")
    hits = [block_id for block_id, _, second in PAIRS_2 if block_id in recalled(mf, second)]
    with capsys.disabled():
        print(f"\nlearned words (model from the prompt): {len(hits)} of {len(PAIRS_2)} pairs")
    assert len(hits) >= len(PAIRS_2) - 1, f"{len(hits)} of {len(PAIRS_2)} went from miss to hit"
    for block_id, first, _ in PAIRS_2:
        keys = [k.strip() for k in mf.entry(block_id).attrs["keys"].split(",")]
        old = dict((m[1], m[4]) for m in MEMORY_2)[block_id]
        learned = keys[: len(keys) - len(old)]
        assert keys[len(learned) :] == old  # learned words first, the old keys kept
        assert 0 < len(learned) <= learn.MAX_NEW_KEYS
        assert set(learned) <= set(first.split()), "only words the user typed"


def test_a_prompt_that_recalled_the_wrong_entry_teaches_the_one_the_model_read(
    env, fake_claude
) -> None:
    cwd = env.project("ops")
    mf = store.MemoryFile(env.memory_file(cwd), layer="project", settings=env.settings())
    for kind, block_id, desc, body, keys in MEMORY_2:
        mf.save(kind, block_id, body, desc=desc, keys=keys)
    fake_claude.script({"lexicon": LEXICON})
    prompt = "after the alembic upgrade the website is dead"
    later = "the website is dead again this morning"
    assert recalled(mf, prompt) == ["db-migrations"]  # the wrong entry
    assert "gunicorn-restart" not in recalled(mf, later)
    end(env, cwd, lookup_turn(prompt, "gunicorn-restart"))
    assert fake_claude.sent_ids() == [["gunicorn-restart"]]  # one call, the entry it read
    keys = mf.entry("gunicorn-restart").attrs["keys"]
    assert keys == "website, dead, 502, gunicorn, workers restart"
    assert mf.entry("db-migrations").attrs["keys"] == "alembic, migrations, schema change"
    assert "gunicorn-restart" in recalled(mf, later)


def test_a_search_lookup_is_read_from_the_search_tools_own_output(env, project) -> None:
    """The best hit is parsed from what `agd_memory_search` really prints, as Claude Code
    stores an MCP result (a list of text parts): a change of that output cannot silently
    stop learning from searches."""
    from agd_memory.mcp import text as mcp_text
    from agd_memory.recall.search import search

    _, mf = project
    query = "daylight saving datetime"
    printed = mcp_text.search(query, search(query, [mf], mf.settings), scope="all")
    nothing = mcp_text.search("zzz", [], scope="all")
    records = []
    for n, (prompt, output) in enumerate([("the report is an hour off", printed), ("x", nothing)]):
        call = tool(MCP + "agd_memory_search", query=query)
        call["message"]["content"][0]["id"] = f"toolu_{n}"
        found = result("")
        found["message"]["content"][0].update(
            tool_use_id=f"toolu_{n}", content=[{"type": "text", "text": output}]
        )
        records += [user(prompt), call, found]
    assert [(f.prompt, f.ids) for f in learn.lookups(records)] == [
        ("the report is an hour off", ["tz-bug"])
    ]
