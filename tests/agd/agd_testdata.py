"""Shared fixtures for the format library tests: where the reference data lives."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Copies of the project's shared reference data (tests/data/README.md says where from)
DATA = ROOT / "tests" / "data"
CONFORMANCE = DATA / "agd-conformance"
EXAMPLES = DATA / "agd-examples"
CORPORA = DATA / "corpora"


def agd_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.agd")) if folder.is_dir() else []
