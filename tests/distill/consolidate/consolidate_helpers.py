"""What the consolidation tests share: the seeded memory, its recorded answer, readers."""

from __future__ import annotations

import json
from pathlib import Path

from agd.parser import parse
from agd.refs import block_citations

DATA = Path(__file__).parents[2] / "data" / "consolidate"
RECORDED = json.loads((DATA / "recorded.json").read_text())


def answer(changes: list[dict]) -> dict:
    """A fake claude response holding `changes` as the structured output."""
    data = {"changes": changes}
    return {
        "result": {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "result": json.dumps(data),
            "structured_output": data,
            "total_cost_usd": 0.002,
        }
    }


def blocks(path: Path) -> dict:
    return {b.id: b for b in parse(path.read_text()).blocks if b.id}


def unresolved(path: Path) -> list[tuple[str, str]]:
    """(citing id, cited id) for every citation that names no block of the file."""
    found = blocks(path)
    return [(b.id, c) for b in found.values() for c in block_citations(b) if c not in found]
