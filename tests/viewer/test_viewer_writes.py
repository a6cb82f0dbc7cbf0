"""The viewer's writes over HTTP: POST only, same-origin only (Origin + the page's token),
through the store's write path (issue 19 §1)."""

from __future__ import annotations

import http.client
import json
import re

import pytest
from viewer_fixtures import Home

from agd_memory import store
from agd_memory.distill import review
from agd_memory.viewer import guard


def auth(srv) -> dict[str, str]:
    """The cookie the viewer sets for the user who opened its address."""
    return {"Cookie": f"{guard.cookie_name(srv.server_address[1])}={srv.secret}"}


def page_token(srv) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", srv.server_address[1], timeout=10)
    conn.request("GET", "/", headers=auth(srv))
    body = conn.getresponse().read().decode()
    conn.close()
    found = re.search(r'<meta name="agd-write-token" content="([^"]+)">', body)
    assert found, "the page carries the token"
    return found.group(1)


def post(
    srv, path: str, data: object, *, token: str | None, origin: str | None = "self", **headers
):
    port = srv.server_address[1]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    sent = {"Host": f"127.0.0.1:{port}", "Content-Type": "application/json", **auth(srv)}
    if origin == "self":
        sent["Origin"] = f"http://127.0.0.1:{port}"
    elif origin is not None:
        sent["Origin"] = origin
    if token is not None:
        sent["X-AGD-Token"] = token
    sent.update(headers)
    conn.request("POST", path, body=json.dumps(data).encode(), headers=sent)
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp.status, body


@pytest.fixture
def key(server) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
    conn.request("GET", "/projects.json", headers=auth(server))
    data = json.loads(conn.getresponse().read())
    conn.close()
    return data["initial"]


def _mf(home: Home) -> store.MemoryFile:
    return store.MemoryFile(home.project, settings=home.settings)


def version(srv, key: str, block_id: str) -> str:
    """The version of an entry as the page has it (what an edit was made on)."""
    conn = http.client.HTTPConnection("127.0.0.1", srv.server_address[1], timeout=10)
    conn.request("GET", f"/memory.json?project={key}", headers=auth(srv))
    data = json.loads(conn.getresponse().read())
    conn.close()
    return next(
        b["version"] for b in data["blocks"] if b["id"] == block_id and b["layer"] == "project"
    )


def test_cross_origin_or_tokenless_posts_are_refused_and_change_nothing(server, home, key, serve):
    before = home.project.read_bytes()
    edit = {"project": key, "layer": "project", "action": "delete", "id": "decision-invoices"}
    token = page_token(server)
    port = server.server_address[1]
    refused = [
        post(server, "/api/entry", edit, token=token, origin="http://evil.example"),
        post(server, "/api/entry", edit, token=token, origin=None),
        post(server, "/api/entry", edit, token=token, origin=f"http://127.0.0.1:{port + 1}"),
        post(server, "/api/entry", edit, token=token, **{"Sec-Fetch-Site": "cross-site"}),
        post(server, "/api/entry", edit, token=None),
        post(server, "/api/entry", edit, token="guessed"),
    ]
    assert [status for status, _ in refused] == [403] * 6
    assert b"Origin" in refused[0][1] and b"token" in refused[4][1]
    assert post(server, "/api/entry", edit, token=token, **{"Content-Type": "text/plain"})[0] == 415
    assert home.project.read_bytes() == before
    # the token is the server's: the same on every load of its page, another for another server
    assert page_token(server) == token
    assert page_token(serve(home)) != token


def test_an_entry_is_edited_and_deleted_through_the_store(server, home, key):
    token = page_token(server)
    edit = {
        "project": key,
        "layer": "project",
        "action": "save",
        "id": "decision-invoices",
        "desc": "invoice numbers: one gapless counter per year",
        "status": "done",
        "keys": "Rechnungsnummer, invoice counter",
        "body": "One counter row per year, locked FOR UPDATE.",
        "version": version(server, key, "decision-invoices"),
    }
    status, body = post(server, "/api/entry", edit, token=token)
    assert status == 200, body
    edit["version"] = version(server, key, "decision-invoices")
    entry = _mf(home).entry("decision-invoices")
    assert entry.desc == edit["desc"] and entry.status == "done"
    assert entry.body == edit["body"] and entry.attrs["keys"] == "rechnungsnummer, invoice counter"
    assert entry.updated is not None and entry.created == "2026-09-10"

    secret = {**edit, "body": "token ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"}
    status, body = post(server, "/api/entry", secret, token=token)
    assert status == 409 and b"secret" in body
    assert _mf(home).entry("decision-invoices").body == edit["body"]

    status, body = post(server, "/api/entry", {**edit, "status": "bogus"}, token=token)
    assert status == 409 and b"status" in body

    gone = {"project": key, "layer": "project", "action": "delete", "id": "decision-invoices",
            "version": edit["version"]}  # fmt: skip
    status, body = post(server, "/api/entry", gone, token=token)
    assert status == 200 and body.count(b"still cited by") == 1  # said once, not twice
    assert _mf(home).entry("decision-invoices") is None
    assert post(server, "/api/entry", gone, token=token)[0] == 404


def test_review_over_http(server, home, key):
    token = page_token(server)
    mf = _mf(home)
    queued = review.enqueue(
        mf,
        [
            review.Proposal.save("x-project", "ci-host", "CI runs on Forgejo.", desc="CI host"),
            review.Proposal.save("x-project", "lint", "Ruff, not flake8.", desc="linter"),
        ],
        source="distill",
        session="s-9",
    )
    accept_id, reject_id = (i.id for i in queued.added)
    conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
    conn.request("GET", f"/review.json?project={key}", headers=auth(server))
    items = json.loads(conn.getresponse().read())["items"]
    conn.close()
    assert [i["id"] for i in items] == [accept_id, reject_id]
    assert "+CI runs on Forgejo." in items[0]["diff"] and items[0]["session"] == "s-9"
    assert mf.entry("ci-host") is None  # pending is not in the file

    def act(action: str, qid: str, **extra):
        data = {"project": key, "layer": "project", "action": action, "id": qid, **extra}
        return post(server, "/api/review", data, token=token)

    assert act("edit", accept_id, text="not agd at all\n~~~")[0] == 409
    text = items[0]["text"].replace("Forgejo.", "Forgejo Actions.")
    assert act("edit", accept_id, text=text)[0] == 200
    assert act("accept", accept_id)[0] == 200
    assert mf.entry("ci-host").body == "CI runs on Forgejo Actions."
    assert act("reject", reject_id)[0] == 200
    assert review.pending(mf) == [] and mf.entry("lint") is None
    assert act("accept", reject_id)[0] == 409  # not pending any more


def test_a_deeply_nested_json_body_gets_a_400_answer(server):
    port = server.server_address[1]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    body = b"[" * 200_000 + b"]" * 200_000
    headers = {"Host": f"127.0.0.1:{port}", "Origin": f"http://127.0.0.1:{port}",
               "Content-Type": "application/json", "X-AGD-Token": page_token(server)}  # fmt: skip
    conn.request("POST", "/api/entry", body=body, headers={**headers, **auth(server)})
    resp = conn.getresponse()
    assert resp.status == 400 and b"nested too deeply" in resp.read()
    conn.close()


def test_a_viewer_save_made_on_an_old_version_never_undoes_a_later_save(server, home, key):
    """The page loaded #decision-invoices; a CLI save lands; the page's Save is refused with
    the current text, and only an edit made on that text is written."""
    token = page_token(server)
    loaded = version(server, key, "decision-invoices")
    mf = _mf(home)
    entry = mf.entry("decision-invoices")
    mf.save(entry.kind, "decision-invoices", "CLI: one counter per year and tenant.",
            desc=entry.desc, keys=["tenant counter"])  # fmt: skip
    edit = {"project": key, "layer": "project", "action": "save", "id": "decision-invoices",
            "desc": "edited in the viewer", "status": "", "keys": "", "body": entry.body,
            "version": loaded}  # fmt: skip
    status, body = post(server, "/api/entry", edit, token=token)
    assert status == 409, body
    answer = json.loads(body)
    assert "changed" in answer["error"] and "since this page loaded it" in answer["error"]
    assert answer["current"]["body"] == "CLI: one counter per year and tenant."
    now = _mf(home).entry("decision-invoices")
    assert now.body.startswith("CLI:") and "tenant counter" in now.attrs["keys"]
    deleted = post(server, "/api/entry", {**edit, "action": "delete"}, token=token)
    assert deleted[0] == 409 and _mf(home).entry("decision-invoices") is not None
    status, _ = post(
        server, "/api/entry", {**edit, "version": answer["current"]["version"]}, token=token
    )
    assert status == 200 and _mf(home).entry("decision-invoices").desc == "edited in the viewer"


def test_a_viewer_edit_records_the_code_its_body_cites(server, home, key, tmp_path, monkeypatch):
    """An entry edited in the viewer gets the `code=` record a `save` gives it (the store's
    one rule of a write), so `stale` watches the file the new body cites."""
    import subprocess

    repo = tmp_path / "shop"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "counter.py").write_text("def next_number():\n    return 1\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    monkeypatch.chdir(repo)  # the project the viewer was started in
    edit = {"project": key, "layer": "project", "action": "save", "id": "decision-invoices",
            "body": "The counter lives in src/counter.py.",
            "version": version(server, key, "decision-invoices")}  # fmt: skip
    status, body = post(server, "/api/entry", edit, token=page_token(server))
    assert status == 200, body
    assert str(_mf(home).entry("decision-invoices").attrs["code"]).startswith("src/counter.py ")


def _git_repo(folder, files: dict[str, str]):
    import subprocess

    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    return folder


def test_an_edit_of_another_projects_memory_records_code_in_that_projects_repository(
    serve, home, tmp_path, monkeypatch
):
    """The viewer shows every project. An entry of a project other than the one it runs in
    gets its `code=` record from that project's repository, as a save there would: not from
    the viewer's current folder, where the cited file is another one, or none."""
    import os

    from agd_memory import paths

    shop = _git_repo(tmp_path / "shop", {"src/counter.py": "def next_number():\n    return 1\n"})
    elsewhere = _git_repo(tmp_path / "elsewhere", {"src/counter.py": "COUNTER = 'not this'\n"})
    key = paths.claude_folder_name(os.path.realpath(shop))
    memory = home.root / ".claude" / "projects" / key / "memory" / "memory.agd"
    memory.parent.mkdir(parents=True)
    store.MemoryFile(memory, settings=home.settings).save(
        "x-decision", "counter-rule", "One counter per year.", desc="invoice numbers"
    )
    monkeypatch.chdir(elsewhere)  # the folder the viewer runs in: another repository
    server = serve(home)
    edit = {"project": key, "layer": "project", "action": "save", "id": "counter-rule",
            "body": "The counter lives in src/counter.py, next_number().",
            "version": version(server, key, "counter-rule")}  # fmt: skip
    status, body = post(server, "/api/entry", edit, token=page_token(server))
    assert status == 200, body
    saved = store.MemoryFile(memory, settings=home.settings).entry("counter-rule")
    monkeypatch.chdir(shop)  # the same text saved in the project itself
    in_shop = store.MemoryFile(tmp_path / "in-shop.agd", settings=home.settings)
    in_shop.save("x-decision", "counter-rule", edit["body"], desc="invoice numbers")
    assert saved.attrs["code"] == in_shop.entry("counter-rule").attrs["code"]
    assert "next_number() src/counter.py" in saved.attrs["code"]
