"""The History endpoints over HTTP: only the viewer's own page may forget, the global layer
has no history, an unknown session or project is refused with nothing removed."""

from __future__ import annotations

import http.client
import json

from test_viewer_history_browser import MIGRATION, RELEASE, add_history
from test_viewer_writes import auth, page_token, post
from viewer_fixtures import Home

from agd_memory.history import files


def get(srv, path: str) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", srv.server_address[1], timeout=10)
    conn.request("GET", path, headers=auth(srv))
    resp = conn.getresponse()
    data = json.loads(resp.read())
    conn.close()
    return resp.status, data


def test_history_json_lists_searches_and_reads_around(home: Home, serve):
    add_history(home)
    srv = serve(home)
    status, data = get(srv, "/history.json")
    assert status == 200 and [s["session"] for s in data["sessions"]] == [RELEASE, MIGRATION]
    assert data["sessions"][1]["exchanges"] == 3 and data["total"] == 2
    _, found = get(srv, "/history.json?q=PR+812")
    assert found["hits"][0]["id"] == f"h-{RELEASE}-1"
    _, around = get(srv, f"/history.json?id=h-{MIGRATION}-3&context=1")
    assert [e["n"] for e in around["exchanges"]] == [2, 3]
    status, missing = get(srv, f"/history.json?id=h-{MIGRATION}-9")
    assert status == 404 and "not in the history" in missing["error"]
    status, glob = get(srv, "/history.json?project=~global")
    assert status == 200 and glob["sessions"] == []
    status, unknown = get(srv, "/history.json?project=nope")
    assert status == 404 and "unknown project key" in unknown["error"]


def test_forget_needs_the_page_token_and_a_known_session(home: Home, serve):
    add_history(home)
    srv = serve(home)
    folder = files.folder_of(home.project)
    _, projects = get(srv, "/projects.json")
    key = projects["initial"]
    ask = {"project": key, "action": "forget", "session": MIGRATION}
    status, _ = post(srv, "/api/history", ask, token=None)
    assert status == 403 and files.find_session(folder, MIGRATION) is not None
    token = page_token(srv)
    status, body = post(srv, "/api/history", {**ask, "session": "no-such"}, token=token)
    assert status == 404 and b"not in the history" in body
    assert len(files.stats(folder)) == 2
    status, body = post(srv, "/api/history", ask, token=token)
    assert status == 200 and json.loads(body)["message"].startswith(f"session {MIGRATION}")
    assert files.find_session(folder, MIGRATION) is None
    assert files.find_session(folder, RELEASE) is not None
