"""What an entry cites is recorded when it is written, and prose never becomes a citation."""

from __future__ import annotations

import pytest

from agd_memory import store
from agd_memory.store import coderefs as cit


def save(env, repo, block_id: str, body: str, **kw) -> store.Entry:
    mf = store.MemoryFile(env.memory_file(repo.root), layer="project", settings=env.settings())
    mf.save("x-fact", block_id, body, **kw)
    entry = mf.entry(block_id)
    assert entry is not None
    return entry


def cited(env, repo, body: str) -> list[str]:
    return [c.label for c in cit.parse_record(save(env, repo, "e", body).attrs.get("code"))]


def test_paths_ranges_symbols_and_bare_names_are_recorded_relative_to_the_root(env, repo):
    body = (
        "Invoices are drawn by render_invoice() in src/billing/pdf.py; the totals are at "
        "pdf.py:24-26 and the header at src/billing/pdf.py:16. See model.py too."
    )
    assert cited(env, repo, body) == [
        "src/billing/pdf.py",
        "src/billing/pdf.py:24-26",
        "src/billing/pdf.py:16",
        "src/billing/model.py",
        "render_invoice()",
    ]
    entry = save(env, repo, "e", body)
    record = cit.parse_record(entry.attrs["code"])
    assert record[-1] == cit.Citation("src/billing/pdf.py", symbol="render_invoice")
    assert all(len(c.fingerprint) % 4 == 0 and c.fingerprint for c in record[:4])
    # the record is one readable attribute that survives a reload of the file
    text = env.memory_file(repo.root).read_text()
    assert 'code="src/billing/pdf.py ' in text
    assert "render_invoice() src/billing/pdf.py" in text


@pytest.mark.parametrize(
    "sentence",
    [
        "We decided, e.g. for invoices, to keep v1.2 of the API and Node.js 20 (i.e. LTS).",
        "Use python3.11 -m venv; version 3.5 broke; see https://example.com/src/billing/pdf.py.",
        "The team met at 10:30 and agreed on the plan. Call me (maybe) later.",
        "Missing files like src/billing/render.py or notes.txt are not citations.",
        "Paths outside the repository such as ../secret.py or /etc/passwd.conf are ignored.",
    ],
)
def test_ordinary_sentences_cite_nothing(env, repo, sentence):
    entry = save(env, repo, "e", sentence)
    assert "code" not in entry.attrs


def test_a_bare_name_that_two_files_share_is_not_guessed(env, repo):
    repo.write("src/shop/model.py", "class Shop:\n    name: str = 'x'\n")
    repo.commit()
    assert cited(env, repo, "The model lives in model.py.") == []
    assert cited(env, repo, "The model lives in shop/model.py.") == ["src/shop/model.py"]


def test_a_symbol_without_a_cited_file_is_found_where_it_is_defined(env, repo):
    assert cited(env, repo, "Totals come from compute_totals() and nowhere else.") == [
        "compute_totals()"
    ]
    assert cited(env, repo, "Call frobnicate() first.") == []  # defined nowhere


def test_saving_again_replaces_the_record(env, repo):
    save(env, repo, "e", "The header is made in src/billing/pdf.py.")
    entry = save(env, repo, "e", "Nothing about code any more.")
    assert "code" not in entry.attrs


def test_outside_a_repository_nothing_is_recorded(env, monkeypatch):
    folder = env.project("plain")
    (folder / "notes.py").write_text("print('hello world, again')\n")
    monkeypatch.chdir(folder)
    mf = store.MemoryFile(env.memory_file(folder), layer="project", settings=env.settings())
    mf.save("x-fact", "e", "See notes.py.")
    assert "code" not in mf.entry("e").attrs


def test_with_agd_memory_project_cwd_the_record_is_that_projects(env, repo, monkeypatch):
    """`AGD_MEMORY_PROJECT_CWD` names the project the layers are resolved for; the code its
    entries cite is looked up in that project's repository, not the shell's folder."""
    monkeypatch.chdir(env.project("elsewhere"))
    monkeypatch.setenv("AGD_MEMORY_PROJECT_CWD", str(repo.root))
    entry = save(env, repo, "e", "Invoices are drawn by render_invoice() in src/billing/pdf.py.")
    assert [c.label for c in cit.parse_record(entry.attrs.get("code"))] == [
        "src/billing/pdf.py",
        "render_invoice()",
    ]


def test_the_fingerprint_samples_non_trivial_lines_and_ignores_indentation():
    lines = ["def f(x):", "    return x + 1  # add one", "}", ""]
    fp = cit.fingerprint(lines)
    assert len(fp) == 8  # two non-trivial lines, 4 hex digits each
    assert cit.sample_kept(fp, ["  def f(x):", "return   x + 1  # add one"]) == (2, 2)
    assert cit.sample_kept(fp, ["def g(y):", "return x + 1  # add one"]) == (1, 2)
    assert cit.fingerprint(["}", "  ", "pass"]) == ""


def test_a_malformed_record_is_skipped_not_raised():
    assert cit.parse_record("src/a.py abcd; junk; ; x() ") == [
        cit.Citation("src/a.py", fingerprint="abcd")
    ]
    assert cit.parse_record(None) == []


def test_an_imported_claude_code_note_gets_the_code_record_a_save_gives(env, repo) -> None:
    from agd_memory.claude.automemory import Fact, import_facts

    body = "Invoices are drawn by render_invoice() in src/billing/pdf.py."
    saved = save(env, repo, "saved", body, desc="invoices")
    mf = store.MemoryFile(repo.root / "imported.agd", layer="project", settings=env.settings())
    fact = Fact("invoices.md", "invoices", "x-project", "invoices", "invoices", body)
    import_facts(mf, [fact])
    imported = mf.entry("invoices")
    assert imported is not None and saved.attrs.get("code")
    assert imported.attrs.get("code") == saved.attrs["code"]


def test_a_consolidation_that_rewrites_a_body_records_what_the_new_body_cites(env, repo) -> None:
    from agd_memory.distill import consolidate as cons

    save(env, repo, "old", "Invoices keep their customer in src/billing/model.py.")
    save(env, repo, "dup", "Invoices are numbered per customer.")
    mf = store.MemoryFile(env.memory_file(repo.root), layer="project", settings=env.settings())
    seen = {b.id: cons.fingerprint(b) for b in mf.document().blocks if b.id in ("old", "dup")}
    merged = "Invoices are drawn by render_invoice() in src/billing/pdf.py."
    change = cons.Change("merge", "old", ("dup",), body=merged, why="one fact")
    cons.apply(mf, cons.Plan(str(mf.path), [change], seen=seen), "2026-12-01")
    entry = mf.entry("old")
    assert entry is not None and entry.body == merged
    labels = [c.label for c in cit.parse_record(entry.attrs.get("code"))]
    assert labels == ["src/billing/pdf.py", "render_invoice()"]
