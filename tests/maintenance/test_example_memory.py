"""The bundled example memory (`examples/`, what `scripts/demo` and a new user start from)
stays clean: nothing for `migrate` to do and no doctor finding that asks for action."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agd_memory.maintenance import doctor, migrate
from agd_memory.maintenance.checks_env import PythonInfo
from agd_memory.settings import Settings

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = [
    ("project", REPO / "examples" / "memory.agd"),
    ("global", REPO / "examples" / "global.agd"),
]


@pytest.fixture
def copies(tmp_path: Path) -> list[tuple[str, Path]]:
    """The example files copied out, so no lock or cache file lands in examples/."""
    out = []
    for layer, path in EXAMPLES:
        target = tmp_path / path.name
        shutil.copyfile(path, target)
        out.append((layer, target))
    return out


@pytest.mark.parametrize("what", sorted(migrate.PLANNERS))
def test_the_example_needs_no_migration(copies, what: str) -> None:
    for _, path in copies:
        report = migrate.migrate_file(path, what, apply=False)
        assert [c.notes for c in report.changes] == [], f"migrate {what} would change {path.name}"


def test_doctor_asks_for_nothing_on_the_example(copies, tmp_path: Path) -> None:
    ctx = doctor.Context(
        settings=Settings.load({"CLAUDE_PLUGIN_DATA": str(tmp_path / "data")}),
        files=copies,
        plugin_root=REPO,
        claude_settings=tmp_path / "home" / ".claude" / "settings.json",
        python_probe=lambda name: PythonInfo(f"/usr/bin/{name}", (3, 12, 1), "2.3.0"),
    )
    findings = doctor.run_checks(ctx)
    loaded = [f.message for f in findings if f.check == "file" and f.level == "ok"]
    assert len(loaded) == 2, loaded
    assert [
        f"{f.level} {f.check}: {f.message}" for f in findings if f.level in ("warn", "error")
    ] == []
