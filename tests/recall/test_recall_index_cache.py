"""The recall index cache: same answers from disk, invalidated by any change, never fatal."""

from __future__ import annotations

from pathlib import Path

import pytest
from recall_helpers import block, write_memory

from agd_memory.recall import front, recall
from agd_memory.store import MemoryFile

PROMPT = "how do we deploy the release script to the vps?"


def fresh_process() -> None:
    """Forget everything kept in process, as a new hook process would."""
    front._PARTS.clear()
    front._ANALYZERS.clear()


@pytest.fixture(autouse=True)
def _fresh() -> None:
    fresh_process()  # each test starts as a new process would, whatever ran before it


def cache_files(settings) -> list[Path]:
    """Recall's own cache files (the store's entry rows aside); none is an error, so a
    test that damages them cannot pass by damaging nothing."""
    found = (Path(settings.data_dir) / "cache").glob("*.cache")
    files = sorted(p for p in found if not p.name.startswith("entries-"))
    assert files, f"no recall cache file in {settings.data_dir}"
    return files


def test_disk_cache_is_written_and_gives_the_same_answer(tmp_path, make_settings) -> None:
    s = make_settings()
    mf = MemoryFile(
        write_memory(
            tmp_path / "m.agd",
            [block("deploy-vps", "deploy on the vps", "Run scripts/deploy.sh now.")],
        ),
        layer="project",
    )
    first = recall(PROMPT, [mf], s)
    # the file's analysis and the synonym map (and the stopword lists, when this process
    # had not read them yet)
    kinds = {p.name.rsplit("-", 1)[0] for p in cache_files(s)}
    assert kinds - {"stopwords"} == {"recall-index", "synonyms"}
    fresh_process()
    second = recall(PROMPT, [mf], s)
    assert (
        [c.entry.id for c in second.chosen] == [c.entry.id for c in first.chosen] == ["deploy-vps"]
    )
    assert second.render() == first.render()
    e1, e2 = first.chosen[0].entry, second.chosen[0].entry
    assert (e2.id, e2.kind, e2.desc, e2.body, e2.layer) == (
        e1.id,
        e1.kind,
        e1.desc,
        e1.body,
        e1.layer,
    )


def test_a_cached_file_read_as_another_layer_reports_that_layer(tmp_path, make_settings) -> None:
    # the same file is one project's memory and, elsewhere, the global layer
    s = make_settings()
    path = write_memory(tmp_path / "m.agd", [block("deploy-vps", "deploy on the vps", "Run it.")])
    recall(PROMPT, [MemoryFile(path, layer="project")], s)
    for _ in range(2):  # built, then read back from the disk cache
        fresh_process()
        (chosen,) = recall(PROMPT, [MemoryFile(path, layer="global")], s).chosen
        assert chosen.layer == chosen.entry.layer == "global"


def test_cache_is_not_reused_after_the_file_changes(tmp_path, make_settings) -> None:
    s = make_settings()
    path = write_memory(tmp_path / "m.agd", [block("deploy-vps", "deploy on the vps", "Run it.")])
    mf = MemoryFile(path, layer="project")
    assert [c.entry.id for c in recall(PROMPT, [mf], s).chosen] == ["deploy-vps"]
    write_memory(
        path,
        [block("deploy-k8s", "deploy release script to the vps cluster", "Use helm, not ssh.")],
    )
    fresh_process()
    assert [c.entry.id for c in recall(PROMPT, [mf], s).chosen] == ["deploy-k8s"]


def test_a_corrupt_cache_file_is_ignored(tmp_path, make_settings) -> None:
    s = make_settings()
    mf = MemoryFile(
        write_memory(tmp_path / "m.agd", [block("deploy-vps", "deploy on the vps", "Run it.")]),
        layer="project",
    )
    recall(PROMPT, [mf], s)
    for f in cache_files(s):
        f.write_bytes(b"\x00garbage")
    fresh_process()
    assert [c.entry.id for c in recall(PROMPT, [mf], s).chosen] == ["deploy-vps"]


def test_an_unwritable_cache_folder_does_not_break_recall(tmp_path, make_settings) -> None:
    blocker = tmp_path / "data"
    blocker.write_text("a file where the data folder should be", encoding="utf-8")
    s = make_settings()
    mf = MemoryFile(
        write_memory(tmp_path / "m.agd", [block("deploy-vps", "deploy on the vps", "Run it.")]),
        layer="project",
    )
    assert [c.entry.id for c in recall(PROMPT, [mf], s).chosen] == ["deploy-vps"]


def test_a_new_synonyms_file_invalidates_the_cache(tmp_path, make_settings) -> None:
    s = make_settings()
    mf = MemoryFile(
        write_memory(
            tmp_path / "m.agd", [block("cassa-setup", "till setup at the counter", "Zebra reader.")]
        ),
        layer="project",
    )
    prompt = "how is the checkout register configured"
    assert recall(prompt, [mf], s).chosen == []
    (tmp_path / ".agd-synonyms").write_text("till, register, checkout\n", encoding="utf-8")
    fresh_process()
    assert [c.entry.id for c in recall(prompt, [mf], s).chosen] == ["cassa-setup"]


def test_more_candidates_than_the_cap_still_finds_the_rare_block(tmp_path, make_settings) -> None:
    s = make_settings()
    blocks = [block(f"note-{i}", f"server note {i}", "server server logs") for i in range(500)]
    blocks.append(
        block("server-kestrel", "kestrel server restart procedure", "systemctl restart kestrel")
    )
    mf = MemoryFile(write_memory(tmp_path / "m.agd", blocks), layer="project")
    got = recall("how do I restart the kestrel server?", [mf], s)
    assert got.chosen and got.chosen[0].entry.id == "server-kestrel"


def test_entries_rebuilt_from_the_cache_equal_the_stores(tmp_path, make_settings) -> None:
    from agd_memory import store

    s = make_settings()
    path = write_memory(
        tmp_path / "m.agd",
        [block("deploy-vps", "deploy on the vps", "Run it.", refs="#backup", updated="2026-01-02"),
         block("backup", "nightly backups", "restic")],
    )  # fmt: skip
    mf = store.MemoryFile(path, layer="project", settings=s)
    first = recall(PROMPT, [mf], s)
    fresh_process()
    second = recall(PROMPT, [store.MemoryFile(path, layer="project", settings=s)], s)
    assert first.chosen and second.chosen
    assert second.chosen[0].entry == first.chosen[0].entry
    assert type(second.chosen[0].entry) is store.Entry


def test_editing_any_module_that_shapes_the_analysis_invalidates_it(
    tmp_path: Path, monkeypatch
) -> None:
    # issue 26: the synonym map is built by lexicon/__init__.py (`build_map`), which was
    # not in the code stamp: changing how it maps words left analyses built the old way
    import shutil

    from agd_memory.recall import analyzer, index

    copy = tmp_path / "recall"
    shutil.copytree(Path(index.__file__).parent, copy)
    monkeypatch.setattr(index, "_HERE", copy)
    for module in (analyzer, analyzer.lexicon, analyzer.cognates, index):
        name = Path(module.__file__).relative_to(Path(index.__file__).parent).as_posix()
        before = index.code_stamp()
        (copy / name).write_text((copy / name).read_text() + "\n# edited\n")
        assert index.code_stamp() != before, name


def test_editing_the_evaluations_analysis_steps_changes_its_analyses_key(
    tmp_path: Path, monkeypatch, make_settings
) -> None:
    """The evaluation's `VariantAnalyzer` replaces analysis steps in `eval/variants.py`,
    outside the code stamp's files: its signature (the disk cache's key) follows that file,
    so an edited step never measures analyses built the old way."""
    import shutil

    from agd_memory.recall.eval import variants
    from agd_memory.recall.eval.features import REFERENCE

    copy = tmp_path / "variants.py"
    shutil.copy(variants.__file__, copy)
    monkeypatch.setattr(variants, "__file__", str(copy))
    settings = make_settings()
    before = variants.analyzer_for([], settings, REFERENCE).signature
    copy.write_text(copy.read_text() + "\n# edited\n")
    assert variants.analyzer_for([], settings, REFERENCE).signature != before
