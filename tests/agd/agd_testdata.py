"""Shared fixtures for the format library tests: where the reference data lives."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# shared/ sits beside the checkout (the working tree and CI's fresh clone alike)
DATA = ROOT.parent / "shared" / "data"
CONFORMANCE = DATA / "agd-conformance"
EXAMPLES = DATA / "agd-examples"
CORPORA = DATA / "corpora"


def agd_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.agd")) if folder.is_dir() else []
