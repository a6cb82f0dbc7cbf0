"""agd.merge3: a live version is never lost to a derived id that names a deleted copy."""

from __future__ import annotations

import hashlib

import pytest

from agd.merge3 import merge
from agd.parser import parse
from agd.serializer import serialize_block


def _entry(block_id: str, body: str, updated: str, extra: str = "") -> str:
    return f'@x-project desc="d" updated={updated}{extra} [#{block_id}]\n~~~\n{body}\n~~~\n\n'


@pytest.mark.parametrize("copy_on", ["ours", "theirs", "both"])
@pytest.mark.parametrize("swap", [False, True])
def test_a_live_version_whose_derived_id_names_a_deleted_copy_is_kept(copy_on, swap):
    """Ours holds #e = L and the superseded copy of L an earlier merge made (#e-<hash>); the
    other side changed #e later and deleted (or kept) the copy. The merge keeps L as that
    copy, as its note says: a live version is never lost."""
    head = "@meta format=agd version=1 [#meta]\n\n"
    live = _entry("e", "ours live version L", "2026-02-01")
    block = parse(head + live).blocks[1]
    copy = block.copy(attrs=dict(block.attrs, status="superseded"), id=None)
    derived = "e-" + hashlib.sha1(serialize_block(copy).encode()).hexdigest()[:6]
    copy_text = _entry(derived, "ours live version L", "2026-02-01", " status=superseded")
    base = head + _entry("e", "v0", "2026-01-01") + copy_text
    ours = head + live + (copy_text if copy_on in ("ours", "both") else "")
    theirs = head + _entry("e", "theirs W", "2026-03-01") + (copy_text if copy_on == "both" else "")
    result = merge(base, theirs, ours) if swap else merge(base, ours, theirs)
    blocks = {b.id: b for b in parse(result.text).blocks}
    assert blocks["e"].value == "theirs W"
    assert blocks[derived].value == "ours live version L"
    assert blocks[derived].attrs["status"] == "superseded"
    assert derived in blocks["e"].attrs["supersedes"]
