"""`merge --apply` and `migrate --apply` refresh the store's caches in the user's data
folder (`CLAUDE_PLUGIN_DATA`), where every reader looks for them, not in the default one.
(`doctor` on a memory path it cannot look at: tests/store/test_paths.py.)"""

from __future__ import annotations

from pathlib import Path

ENTRY = '@x-project desc="{id} fact" [#{id}]\n~~~\n{id} body.\n~~~\n'


def _memory(path: Path, *ids: str) -> Path:
    path.write_text(
        "@meta format=agd version=1 [#meta]\n\n" + "".join(ENTRY.format(id=i) for i in ids),
        encoding="utf-8",
    )
    return path


def test_merge_apply_refreshes_the_cache_in_the_data_folder(
    tmp_path: Path, env, run
) -> None:
    source = _memory(tmp_path / "old.agd", "alpha")
    dest = _memory(tmp_path / "memory.agd", "beta")
    status, out, err = run("merge", source, dest, "--apply")
    assert status == 0, err
    assert list((tmp_path / "data" / "cache").iterdir())  # CLAUDE_PLUGIN_DATA's cache
    assert not (env.home / ".local").exists()  # not the default data folder


def test_migrate_apply_refreshes_the_cache_in_the_data_folder(
    tmp_path: Path, env, run
) -> None:
    memory = _memory(tmp_path / "memory.agd", "alpha")
    memory.write_text(
        memory.read_text(encoding="utf-8")
        + ENTRY.format(id="beta").replace("body.", "see #alpha."),
        encoding="utf-8",
    )
    status, out, err = run("migrate", "refs", memory, "--apply")
    assert status == 0, err
    assert "refs=" in memory.read_text(encoding="utf-8")  # the citation was lifted
    assert list((tmp_path / "data" / "cache").iterdir())
    assert not (env.home / ".local").exists()
