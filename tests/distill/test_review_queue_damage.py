"""The review queue file damaged or raced: a damaged queue is never read as empty nor
overwritten, a malformed item is named and skipped, and one item is accepted or rejected,
never both (issue 24: review_queue_tamper.sh, review_accept_reject_race.sh)."""

from __future__ import annotations

import json

import pytest

from agd_memory import store
from agd_memory.cli import main
from agd_memory.distill import review


@pytest.fixture
def mf(env, monkeypatch):
    cwd = env.project("app")
    monkeypatch.chdir(cwd)
    return store.MemoryFile(env.memory_file(cwd), settings=env.settings())


def propose(mf, *ids: str) -> list[review.Item]:
    proposals = [review.Proposal.save("x-project", i, f"proposed fact {i}") for i in ids]
    return review.enqueue(mf, proposals, source="distill").added


def test_a_damaged_queue_is_reported_and_never_overwritten(mf, capsys) -> None:
    propose(mf, "p0", "p1", "p2")
    queue = review.queue_path(mf.settings, mf.path)
    damaged = queue.read_bytes()[:-3]
    queue.write_bytes(damaged)

    assert main(["review", "list"]) == 1
    err = capsys.readouterr().err
    assert str(queue) in err and "damaged" in err and "move it aside" in err
    assert len(err.strip().splitlines()) == 1
    with pytest.raises(review.ReviewError, match="damaged"):
        propose(mf, "late")  # the next proposal does not replace the three waiting
    assert queue.read_bytes() == damaged

    queue.rename(queue.with_name(queue.name + ".damaged"))  # what the message says to do
    assert [i.entry["id"] for i in propose(mf, "late")] == ["late"]


def test_a_malformed_item_is_named_and_skipped(mf, capsys) -> None:
    propose(mf, "a1", "a2")
    queue = review.queue_path(mf.settings, mf.path)
    data = json.loads(queue.read_text())
    bad = json.loads(json.dumps(data["pending"][0]))
    bad.update(id="pbad", fingerprint="x")
    del bad["entry"]["body"]
    data["pending"].append(bad)
    queue.write_text(json.dumps(data))

    assert main(["review", "list"]) == 0
    out, err = capsys.readouterr()
    assert out.count("\n== ") + out.startswith("== ") == 2 and "pbad" not in out
    assert "pbad" in err and "body" in err and str(queue) in err
    assert main(["review", "accept", "--all"]) == 0
    assert {e.id for e in mf.entries()} >= {"a1", "a2"}


@pytest.mark.parametrize("first", ["reject", "accept"])
def test_accept_and_reject_of_one_item_at_once_one_wins(mf, monkeypatch, first) -> None:
    """The second command found the item pending, then the first handled it before the
    second changed the queue: the second reports it is already handled and does nothing."""
    (item,) = propose(mf, "race")
    second = "accept" if first == "reject" else "reject"
    find, done = review.find, []

    def find_then_other_command(m, ids):
        found = find(m, ids)
        if not done:
            done.append(True)
            getattr(review, first)(m, ids)  # the other command runs to its end meanwhile
        return found

    monkeypatch.setattr(review, "find", find_then_other_command)
    with pytest.raises(review.ReviewError, match="already accepted or rejected"):
        getattr(review, second)(mf, [item.id])
    written = mf.entry("race") is not None
    remembered = (
        item.fingerprint
        in json.loads(review.queue_path(mf.settings, mf.path).read_text())["rejected"]
    )
    assert (written, remembered) == ((True, False) if first == "accept" else (False, True))
    assert review.pending(mf) == []
