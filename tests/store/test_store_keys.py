"""Search keys: `keys=` on save, `set_keys` for many entries, and their validation."""

from __future__ import annotations

import pytest

import agd
from agd_memory import store
from agd_memory.errors import SaveRejected
from agd_memory.store.rules import MAX_KEYS


def _attrs(mf: store.MemoryFile, block_id: str) -> dict:
    block = agd.parse(mf.path.read_text(encoding="utf-8")).find(block_id)
    assert block is not None, f"#{block_id} missing"
    return dict(block.attrs)


def test_save_writes_clean_keys_and_keeps_them_on_update(mf: store.MemoryFile) -> None:
    mf.save("x-project", "db", "We use Postgres.", keys=[" Database ", "banca  dati", "db", "DB"])
    assert _attrs(mf, "db")["keys"] == "database, banca dati, db"
    mf.save("x-project", "db", "We use Postgres 16.")  # keys omitted: kept
    assert _attrs(mf, "db")["keys"] == "database, banca dati, db"
    mf.save("x-project", "db", "We use Postgres 16.", keys="sql, postgresql")  # a comma string
    assert _attrs(mf, "db")["keys"] == "sql, postgresql"
    mf.save("x-project", "db", "We use Postgres 16.", keys=[])
    assert "keys" not in _attrs(mf, "db")


def test_entries_expose_keys_as_an_attribute(mf: store.MemoryFile) -> None:
    mf.save("x-project", "db", "We use Postgres.", desc="database", keys=["sql"])
    (entry,) = [e for e in mf.entries() if e.id == "db"]
    assert entry.attrs["keys"] == "sql"
    assert "keys=" not in entry.to_agd(drop=("keys",))
    assert "keys=sql" in entry.to_agd()


@pytest.mark.parametrize(
    ("keys", "why"),
    [
        (["x" * 49], "at most 48 characters"),
        ([f"k{i}" for i in range(MAX_KEYS + 1)], f"keep the {MAX_KEYS} most useful"),
        ([3], "must be text"),
    ],
)
def test_bad_keys_are_refused_and_nothing_is_written(mf: store.MemoryFile, keys, why) -> None:
    mf.save("x-project", "db", "We use Postgres.")
    before = mf.path.read_bytes()
    with pytest.raises(SaveRejected, match=why):
        mf.save("x-project", "db", "We use Postgres 16.", keys=keys)
    assert mf.path.read_bytes() == before


@pytest.mark.parametrize("secret", ["ghp_" + "a1B2" * 9, "AKIA" + "IOSFODNN7EXAMPLE"])
def test_a_secret_in_the_keys_is_refused(mf: store.MemoryFile, secret: str) -> None:
    # checked as given: lowercased, an AWS key id no longer looks like one
    with pytest.raises(SaveRejected, match="looks like"):
        mf.save("x-project", "db", "We use Postgres.", keys=["db", secret])
    assert not mf.path.exists()
    mf.save("x-project", "db", "We use Postgres.")
    with pytest.raises(SaveRejected, match="looks like"):
        mf.set_keys({"db": [secret]})


def test_a_long_secret_in_the_keys_is_named_not_quoted(mf: store.MemoryFile) -> None:
    # Longer than a key may be: the secret check runs first, so the error never echoes it.
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
    for write in (
        lambda: mf.save("x-project", "db", "We use Postgres.", keys=["db", jwt]),
        lambda: mf.set_keys({"db": [jwt]}),
    ):
        with pytest.raises(SaveRejected, match="looks like a JSON web token") as refused:
            write()
        assert jwt[20:40].lower() not in str(refused.value).lower()
        mf.save("x-project", "db", "We use Postgres.")


def test_set_keys_writes_many_entries_and_leaves_the_rest_alone(mf: store.MemoryFile) -> None:
    mf.save("x-project", "db", "We use Postgres.", desc="database")
    mf.save("x-project", "deploy", "scripts/deploy.sh", desc="deploy")
    before = {i: _attrs(mf, i) for i in ("db", "deploy")}
    written = mf.set_keys({"db": ["sql", "postgresql"], "root": ["x"], "nope": ["y"]})
    assert written == ("db",)  # a heading and an unknown id are skipped
    after = _attrs(mf, "db")
    assert after.pop("keys") == "sql, postgresql"
    assert after == before["db"]  # updated, created and desc untouched
    assert _attrs(mf, "deploy") == before["deploy"]
    assert mf.set_keys({"db": ["sql", "postgresql"]}) == ()  # unchanged: nothing written
    assert mf.set_keys({"db": []}) == ("db",)
    assert "keys" not in _attrs(mf, "db")


def test_a_keys_run_never_loses_keys_saved_meanwhile(mf: store.MemoryFile) -> None:
    mf.save("x-project", "db", "We use Postgres.", desc="database")
    mf.save("x-project", "deploy", "scripts/deploy.sh", desc="deploy")
    # the run read both without keys, then asked a model; meanwhile a save gave keys
    mf.save("x-project", "db", "We use Postgres.", desc="database", keys=["by hand", "model"])
    written = mf.set_keys({"db": ["model", "banca dati"], "deploy": ["release"]}, after=True)
    assert set(written) == {"db", "deploy"}
    assert _attrs(mf, "db")["keys"] == "by hand, model, banca dati"
    assert _attrs(mf, "deploy")["keys"] == "release"


def test_keys_added_past_the_limit_make_room_at_the_end(mf: store.MemoryFile) -> None:
    own = [f"own {n}" for n in range(MAX_KEYS - 2)]
    mf.save("x-project", "db", "We use Postgres.", desc="database", keys=own)
    mf.set_keys({"db": ["new 1", "new 2", "new 3"]}, after=True)
    assert _attrs(mf, "db")["keys"].split(", ") == [*own, "new 1", "new 2"]
    mf.set_keys({"db": ["learned"]}, first=True)
    assert _attrs(mf, "db")["keys"].split(", ") == ["learned", *own, "new 1"]


def test_a_set_keys_that_changes_nothing_leaves_the_file_alone(mf: store.MemoryFile) -> None:
    mf.save("x-project", "db", "We use Postgres.", desc="database", keys=["sql"])
    before = mf.path.stat()
    assert mf.set_keys({"db": ["sql"]}, after=True) == ()
    after = mf.path.stat()  # not rewritten: the caches built for it stay valid
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_save_keys_from_the_command_line(cli) -> None:
    r = cli("save", "x-project", "db", "--content", "We use Postgres.", "--keys", "SQL, banca dati")
    assert r.returncode == 0, r.stderr
    r = cli("get", "db")
    assert 'keys="sql, banca dati"' in r.stdout
