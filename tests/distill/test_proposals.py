"""Proposals: validated, redacted, de-duplicated, written through the store."""

from __future__ import annotations

import pytest

from agd.lines import is_identifier
from agd_memory import paths, store
from agd_memory.distill import proposals
from agd_memory.errors import UserError

GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def P(**fields: object) -> dict:
    base = {
        "kind": "x-project",
        "id": "queue-db",
        "desc": "Job queue runs on Postgres",
        "body": "Chosen for SKIP LOCKED.",
    }
    return {**base, **fields}


@pytest.fixture
def layers(env):
    project = env.project("app")
    return paths.resolve(env.settings(), cwd=str(project))


def apply(raw: list[object], layers, settings, *, shown=(), **options) -> proposals.Report:
    """`proposals.apply` for a model that was shown the entries `shown`."""
    return proposals.apply(raw, layers, settings, shown=shown, **options)


def memory(layers, env, layer: str = "project") -> store.MemoryFile:
    chosen = layers.project if layer == "project" else layers.global_
    return store.MemoryFile(chosen.path, layer=chosen.name, settings=env.settings())


def ids(mf: store.MemoryFile) -> list[str]:
    return [e.id for e in mf.entries() if e.is_memory] if mf.exists() else []


# --- validation --------------------------------------------------------------------------


def test_a_valid_proposal_passes_unchanged() -> None:
    p = proposals.validate(P(status="open", supersedes=["#old-db"], scope="project"))
    assert (p.kind, p.id, p.status, p.supersedes, p.scope) == (
        "x-project",
        "queue-db",
        "open",
        ("old-db",),
        "project",
    )
    assert p.notes == () and p.redacted == ()


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("not a dict", "not an object"),
        (P(kind="x-secret-plans"), "unknown kind"),
        (P(id=""), "no id"),
        (P(body="   "), "empty body"),
    ],
)
def test_invalid_proposals_are_refused(raw: object, message: str) -> None:
    with pytest.raises(UserError, match=message):
        proposals.validate(raw)


def test_fields_are_normalised() -> None:
    p = proposals.validate(
        P(
            kind="feedback",
            id="#vers.1.9.0",
            desc="two\n  lines",
            status="superseded",
            supersedes="a, #b, bad id, vers-1-9-0",
        )
    )
    assert p.kind == "x-feedback"
    assert p.id == "vers-1-9-0"
    assert p.desc == "two lines"
    assert p.status is None
    assert p.supersedes == ("a", "b")
    assert any("became" in n for n in p.notes)


def test_global_scope_is_only_for_facts_about_the_user() -> None:
    assert proposals.validate(P(kind="x-user", scope="global")).scope == "global"
    p = proposals.validate(P(kind="x-project", scope="global"))
    assert p.scope == "project" and any("scope global" in n for n in p.notes)


def test_long_text_is_clipped_and_an_empty_desc_borrows_the_first_body_line() -> None:
    p = proposals.validate(P(desc="", body="First line says it.\nMore." + "x" * 9000))
    assert p.desc == "First line says it."
    assert len(p.body) == proposals.BODY_CHARS


def test_secrets_are_redacted_from_desc_and_body() -> None:
    p = proposals.validate(
        P(desc=f"token {GITHUB_TOKEN}", body=f"Deploy with GITHUB_TOKEN={GITHUB_TOKEN} from CI.")
    )
    assert GITHUB_TOKEN not in p.desc + p.body
    assert "[REDACTED" in p.body
    assert p.redacted


def test_near_duplicates_are_recognised() -> None:
    class E:
        def __init__(self, id: str, desc: str, body: str, status: str | None = None) -> None:
            self.id, self.desc, self.body, self.status = id, desc, body, status

    p = proposals.validate(
        P(
            id="pg-queue",
            desc="The job queue runs on Postgres",
            body="Chosen for SKIP LOCKED row locking.",
        )
    )
    assert (
        proposals.near_duplicate(
            p, [E("queue", "Job queue runs on Postgres", "Chosen because SKIP LOCKED row locking.")]
        )
        == "queue"
    )
    assert (
        proposals.near_duplicate(p, [E("x", "other", "Chosen for SKIP LOCKED row locking.")]) == "x"
    )
    assert (
        proposals.near_duplicate(
            p, [E("ci", "CI runs on GitHub Actions", "Workflows live in .github.")]
        )
        is None
    )
    superseded = E(
        "queue", "Job queue runs on Postgres", "Chosen for SKIP LOCKED.", status="superseded"
    )
    assert proposals.near_duplicate(p, [superseded]) is None


# --- writing through the store -------------------------------------------------------------


def test_new_proposals_are_added_to_the_project_layer(env, layers) -> None:
    report = apply(
        [
            P(),
            P(
                kind="x-user",
                id="likes-tabs",
                desc="Prefers tabs",
                body="Tabs everywhere.",
                scope="global",
            ),
        ],
        layers,
        env.settings(),
    )
    assert [o.action for o in report.outcomes] == ["added", "added"]
    assert report.saved_ids == ["queue-db", "likes-tabs"]
    (entry,) = [e for e in memory(layers, env).entries() if e.id == "queue-db"]
    assert (entry.kind, entry.desc, entry.body.strip()) == (
        "x-project",
        "Job queue runs on Postgres",
        "Chosen for SKIP LOCKED.",
    )
    assert ids(memory(layers, env, "global")) == ["likes-tabs"]


def test_at_most_three_proposals_are_considered(env, layers) -> None:
    topics = [
        "postgres queue",
        "deploy fridays",
        "tabs indentation",
        "pytest markers",
        "docker compose",
    ]
    many = [
        P(id=f"fact-{i}", desc=f"About {t}", body=f"The {t} decision.")
        for i, t in enumerate(topics)
    ]
    report = apply(many, layers, env.settings())
    assert len(report.outcomes) == 3
    assert sorted(ids(memory(layers, env))) == ["fact-0", "fact-1", "fact-2"]


def test_a_matching_id_updates_the_block(env, layers) -> None:
    apply([P()], layers, env.settings())
    report = apply(
        [P(body="Chosen for SKIP LOCKED; pool size 20.")], layers, env.settings()
    )
    assert report.outcomes[0].action == "updated"
    (entry,) = [e for e in memory(layers, env).entries() if e.id == "queue-db"]
    assert "pool size 20" in entry.body
    again = apply(
        [P(body="Chosen for SKIP LOCKED; pool size 20.")], layers, env.settings()
    )
    assert again.outcomes[0].action == "unchanged"


def test_a_named_block_is_superseded(env, layers) -> None:
    apply(
        [P(id="queue-redis", desc="Job queue runs on Redis", body="Uses BRPOPLPUSH.")],
        layers,
        env.settings(),
    )
    report = apply(
        [P(supersedes=["queue-redis", "ghost"])], layers, env.settings(), shown={"queue-redis"}
    )
    assert report.outcomes[0].action == "added"
    entries = {e.id: e for e in memory(layers, env).entries()}
    assert entries["queue-redis"].status == "superseded"
    assert entries["queue-db"].supersedes == ("queue-redis",)


def test_a_near_duplicate_of_an_existing_block_is_skipped(env, layers) -> None:
    apply([P()], layers, env.settings())
    report = apply([P(id="postgres-queue")], layers, env.settings())
    assert report.outcomes[0].action == "duplicate"
    assert "#queue-db" in report.outcomes[0].message
    assert ids(memory(layers, env)) == ["queue-db"]


def test_headings_and_meta_ids_cannot_be_overwritten(env, layers) -> None:
    apply([P()], layers, env.settings())
    report = apply(
        [P(id="root", desc="hijack", body="replace the root heading")], layers, env.settings()
    )
    assert report.outcomes[0].action == "invalid"


def test_a_proposal_holding_an_api_key_is_saved_redacted(env, layers) -> None:
    key = "sk-ant-api03-" + "Zx9" * 30
    report = apply(
        [
            P(
                id="api-access",
                desc="How the API is reached",
                body=f"Call it with ANTHROPIC_API_KEY={key} in the env.",
            )
        ],
        layers,
        env.settings(),
    )
    assert report.outcomes[0].action == "added"
    text = memory(layers, env).path.read_text()
    assert key not in text and "[REDACTED" in text


def test_a_dry_run_writes_nothing(env, layers) -> None:
    report = apply([P()], layers, env.settings(), dry_run=True)
    assert report.outcomes[0].action == "would add"
    assert not memory(layers, env).exists()


# --- properties ------------------------------------------------------------------------------

from hypothesis import given  # noqa: E402
from hypothesis import settings as hsettings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_values = st.one_of(
    st.none(), st.text(max_size=300), st.integers(), st.lists(st.text(max_size=20), max_size=4)
)


@pytest.mark.property
@hsettings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["kind", "id", "desc", "body", "status", "supersedes", "scope", "extra"]),
        _values,
    )
)
def test_any_model_output_is_either_refused_or_made_safe(raw: dict) -> None:
    try:
        p = proposals.validate(raw)
    except UserError:
        return
    assert p.kind in proposals.KINDS
    assert is_identifier(p.id) and len(p.id) <= 64
    assert "\n" not in p.desc and len(p.desc) <= proposals.DESC_CHARS
    assert p.body.strip() and len(p.body) <= proposals.BODY_CHARS
    assert p.status in (None, "open", "done")
    assert p.scope in ("project", "team", "global")
    assert not (p.scope == "team" and p.kind == "x-user")
    assert all(is_identifier(s) and s != p.id for s in p.supersedes)


def test_keys_are_cleaned_and_written_with_the_block(layers, env) -> None:
    raw = P(keys=["Job Queue", "coda lavori, background jobs", "job queue", "x" * 60, GITHUB_TOKEN])
    p = proposals.validate(raw)
    assert p.keys == ("job queue", "coda lavori", "background jobs")
    assert sum("dropped" in n for n in p.notes) == 2  # too long; a secret
    apply([raw], layers, env.settings())
    (entry,) = [e for e in memory(layers, env).entries() if e.id == "queue-db"]
    assert entry.attrs["keys"] == "job queue, coda lavori, background jobs"


def test_a_proposal_without_keys_is_still_written(layers, env) -> None:
    assert proposals.validate(P()).keys == ()
    apply([P()], layers, env.settings())
    (entry,) = [e for e in memory(layers, env).entries() if e.id == "queue-db"]
    assert "keys" not in entry.attrs
