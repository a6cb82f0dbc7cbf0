"""What the user and the model see: the session start checks the code, the TOC marks the
stale entries, recall ranks them below fresh ones and its header says so, `get` and an
injected recall count as uses."""

from __future__ import annotations

from agd_memory import recall, store, toc
from agd_memory.claude import hooks
from agd_memory.cli import main
from agd_memory.hygiene import usage


def seed(env, repo) -> store.MemoryFile:
    mf = store.MemoryFile(env.memory_file(repo.root), layer="project", settings=env.settings())
    mf.save(
        "x-project",
        "invoice-render",
        "Invoice PDFs: render_invoice() draws the invoice header and totals.",
        desc="invoice PDF rendering entry point",
    )
    mf.save(
        "x-project",
        "invoice-totals",
        "Invoice PDF totals: compute_totals() adds the invoice tax to the header totals.",
        desc="invoice PDF totals and tax",
    )
    return mf


def session_start(env, repo) -> str:
    text = hooks.session_start(hooks.normalize({"cwd": str(repo.root)}), env.settings())
    assert text is not None
    return text


PROMPT = "how are the invoice PDF header and totals rendered?"


def test_fresh_memory_is_unmarked_and_recall_keeps_its_order(env, repo):
    mf = seed(env, repo)
    text = session_start(env, repo)
    assert toc.STALE_NOTE not in text
    result = recall.recall(PROMPT, [mf], env.settings())
    assert {s.entry.id for s in result.chosen} == {"invoice-render", "invoice-totals"}
    assert "changed since written" not in result.render()
    assert "code=" not in result.render()  # the record is for `stale`, not for the model


def test_a_renamed_symbol_marks_the_toc_and_ranks_the_entry_last(env, repo):
    mf = seed(env, repo)
    session_start(env, repo)
    fresh = [s.entry.id for s in recall.recall(PROMPT, [mf], env.settings()).chosen]
    repo.write("src/billing/pdf.py", repo.PDF.replace("render_invoice", "render_document"))
    repo.commit("rename")
    text = session_start(env, repo)
    assert "- #invoice-render: invoice PDF rendering entry point [code changed, 2026-11-30]" in text
    assert "- #invoice-totals: invoice PDF totals and tax [2026-11-30]" in text
    assert "cites code that changed since written (`agd-memory stale`)" in text
    result = recall.recall(PROMPT, [mf], env.settings())
    assert [s.entry.id for s in result.chosen] == ["invoice-totals", "invoice-render"]
    assert [s.stale for s in result.chosen] == [False, True]
    head = result.render().splitlines()[0]
    assert "#invoice-render cite code that changed since written (ranked last" in head
    assert fresh  # both were recalled before the change too
    # nothing was written to the memory by any of this
    assert mf.entry("invoice-render").attrs["code"] == "render_invoice() src/billing/pdf.py"


def test_recall_by_the_prompt_hook_and_get_count_as_uses(env, repo):
    mf = seed(env, repo)
    payload = hooks.normalize({"cwd": str(repo.root), "prompt": PROMPT})
    assert hooks.prompt(payload, env.settings())
    _, last = usage.last_used(env.data)
    assert {i for (m, i) in last if m == str(mf.path)} == {"invoice-render", "invoice-totals"}
    usage.log_path(env.data).unlink()
    assert main(["get", "invoice-totals", "--follow-refs"]) == 0  # the verb, like the MCP tool
    _, last = usage.last_used(env.data)
    assert set(last) == {(str(mf.path), "invoice-totals")}
