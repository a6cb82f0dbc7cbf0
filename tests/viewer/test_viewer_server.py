"""The viewer's HTTP server: endpoints, payload, Host check, traversal, bad files, the command."""

from __future__ import annotations

import http.client
import json
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from viewer_fixtures import XSS_DESC, Home, write

from agd_memory.viewer import assets, guard
from agd_memory.viewer import server as viewer_server

REPO = Path(__file__).resolve().parents[2]


def request(srv, path: str, *, host: str | None = "default", method: str = "GET"):
    """(status, headers, body) for a raw request path, with full control of the Host header."""
    port = srv.server_address[1]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    if host == "default":
        conn.putheader("Host", f"127.0.0.1:{port}")
    elif host is not None:
        conn.putheader("Host", host)
    conn.putheader("Cookie", f"{guard.cookie_name(port)}={srv.secret}")
    conn.endheaders()
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, body


def get_json(srv, path: str) -> tuple[int, dict]:
    status, headers, body = request(srv, path)
    assert headers["content-type"].startswith("application/json")
    return status, json.loads(body)


def blocks_by_uid(data: dict) -> dict[str, dict]:
    return {b["uid"]: b for b in data["blocks"]}


# -- page and headers ---------------------------------------------------------------


def test_page_is_served_with_strict_headers(server):
    status, headers, body = request(server, "/")
    assert status == 200
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert b'<script type="module" src="/app.js">' in body
    csp = headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp and "http" not in csp
    assert headers["cache-control"] == "no-store"
    assert headers["x-content-type-options"] == "nosniff"
    assert int(headers["content-length"]) == len(body)


@pytest.mark.parametrize("path", ["/app.js", "/style.css", "/theme.js", "/favicon.svg", "/read.js"])
def test_static_assets_have_their_content_type(server, path):
    status, headers, _ = request(server, path)
    assert status == 200
    assert headers["content-type"].split(";")[0] in ("text/javascript", "text/css", "image/svg+xml")
    assert headers["cache-control"] == "no-store"


def test_page_names_no_other_host_and_parses_no_memory_as_html():
    """Every URL in the page is relative; the only HTML sink is markdown-it's output."""
    sinks = re.compile(r"\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|eval\(")
    for file in assets.STATIC_DIR.iterdir():
        text = file.read_text(encoding="utf-8")
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", ""), file.name
        assert "https://" not in text, file.name
        found = sinks.findall(text)
        assert found == (["innerHTML"] if file.name == "markdown.js" else []), file.name
    assert (
        "box.innerHTML = markdown.render(text)" in (assets.STATIC_DIR / "markdown.js").read_text()
    )


def test_head_sends_headers_without_body(server):
    status, headers, body = request(server, "/projects.json", method="HEAD")
    assert status == 200 and body == b"" and int(headers["content-length"]) > 0


def test_writes_are_refused(server):
    status, headers, _ = request(server, "/memory.json", method="POST")
    assert status == 405
    assert headers["cache-control"] == "no-store"


# -- /projects.json and /memory.json ------------------------------------------------


def test_projects_newest_first_with_global_layer(server, home: Home):
    status, data = get_json(server, "/projects.json")
    assert status == 200
    keys = [p["key"] for p in data["projects"]]
    assert keys == ["-work-harbor", "-work-other"]
    first = data["projects"][0]
    assert first["display"] == "/work/harbor"
    assert first["path"] == str(home.project)
    assert first["bytes"] == home.project.stat().st_size
    assert first["mtime"] == pytest.approx(2_000_000_000)
    assert data["initial"] == "-work-harbor"
    assert data["global"] == {
        "key": "~global",
        "path": str(home.global_),
        "exists": True,
        "bytes": home.global_.stat().st_size,
        "mtime": pytest.approx(home.global_.stat().st_mtime),
    }


def test_memory_has_both_layers_with_resolved_edges(server):
    status, data = get_json(server, "/memory.json?project=-work-harbor")
    assert status == 200
    assert data["title"] == "Harbor shop memory"
    assert [(lay["name"], lay["error"]) for lay in data["layers"]] == [
        ("project", None),
        ("global", None),
    ]
    blocks = blocks_by_uid(data)
    assert "project:h-user" not in blocks and "project:meta" not in blocks  # structure, not rows
    decision = blocks["project:decision-invoices"]
    assert decision["kind"] == "x-project" and decision["layer"] == "project"
    assert decision["status"] == "open" and decision["created"] == "2026-09-10"
    assert decision["desc"] == "invoice numbers come from a gapless counter table"
    assert "zanzibar" in decision["body"]
    assert decision["attrs"]["status"] == "open" and "desc" not in decision["attrs"]
    assert decision["refs"] == [
        {"id": "user-lena", "uid": "project:user-lena"},
        {"id": "no-such-block", "uid": None},
    ]
    assert {b["uid"] for b in decision["backlinks"]} == {
        "project:feedback-tests",
        "project:credit-notes",
    }
    # A ref to an id only the global layer has crosses layers; backlinks follow it.
    tests = blocks["project:feedback-tests"]
    assert {"id": "pref-no-emoji", "uid": "global:pref-no-emoji"} in tests["refs"]
    assert {"id": "feedback-tests", "uid": "project:feedback-tests"} in blocks[
        "global:pref-no-emoji"
    ]["backlinks"]
    # Superseding is visible from both ends.
    assert blocks["project:old-invoices"]["superseded_by"] == [
        {"id": "credit-notes", "uid": "project:credit-notes"}
    ]
    assert blocks["project:credit-notes"]["supersedes"] == [
        {"id": "old-invoices", "uid": "project:old-invoices"}
    ]
    assert blocks["project:xss-desc"]["desc"] == XSS_DESC
    # Sections come from the headings, in file order.
    assert [s["title"] for s in data["sections"] if s["layer"] == "project"] == [
        "User",
        "Feedback",
        "Reference",
        "Project",
    ]
    assert decision["section"] == "project:h-project"
    stats = data["stats"]
    assert stats["blocks"] == len(data["blocks"]) == 6 + 40 + 2
    assert stats["kinds"] == {"x-feedback": 43, "x-project": 3, "x-reference": 1, "x-user": 1}
    assert stats["dangling"] == 1
    assert stats["edges"] == sum(len(b["refs"]) for b in data["blocks"])


def test_global_key_shows_the_global_layer_alone(server):
    status, data = get_json(server, "/memory.json?project=~global")
    assert status == 200
    assert {b["layer"] for b in data["blocks"]} == {"global"}
    assert data["title"] == "Global memory"


def test_default_project_is_the_initial_one(server):
    _, data = get_json(server, "/memory.json")
    assert data["key"] == "-work-harbor"


@pytest.mark.parametrize(
    "key",
    [
        "nope",
        "../../etc",
        "%2F..%2F..%2Fetc%2Fpasswd",
        "/etc/passwd",
        "-work-harbor/../-work-other",
    ],
)
def test_project_key_is_never_a_path(server, key):
    status, data = get_json(server, f"/memory.json?project={key}")
    assert status == 404
    assert "pick one from /projects.json" in data["error"]
    status, _ = get_json(server, f"/version.json?project={key}")
    assert status == 404


@pytest.mark.parametrize(
    "path",
    [
        "/../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/static/../server.py",
        "/server.py",
        "/vendor/../package.json",
        "/vendor/cytoscape/package.json",
        "//etc/passwd",
        "/.%2e/pyproject.toml",
        "/index.html/..",
    ],
)
def test_path_traversal_is_refused(server, path):
    status, _, body = request(server, path)
    assert status == 404
    assert b"root:" not in body and b"[project]" not in body


def test_malformed_file_is_reported_not_fatal(server, home: Home):
    write(
        home.project, '@meta format=agd [#meta]\n\n@x-project desc="unclosed [#broken]\n~~~\nbody\n'
    )
    status, data = get_json(server, "/memory.json?project=-work-harbor")
    assert status == 200
    project, global_ = data["layers"]
    assert project["error"], "the parse error is reported"
    assert global_["error"] is None
    assert {b["layer"] for b in data["blocks"]} == {"global"}  # the other layer still shows
    status, _, _ = request(server, "/")
    assert status == 200  # and the server is still up


def test_version_changes_when_the_file_changes(server, home: Home):
    _, before = get_json(server, "/version.json?project=-work-harbor")
    _, memory = get_json(server, "/memory.json?project=-work-harbor")
    assert before["version"] == memory["version"]
    with home.project.open("a", encoding="utf-8") as f:
        f.write('\n@x-project desc="added later" [#added-later]\n~~~\nnew\n~~~\n')
    _, after = get_json(server, "/version.json?project=-work-harbor")
    assert after["version"] != before["version"]


def test_missing_global_layer_is_shown_as_absent(server, home: Home):
    home.global_.unlink()
    _, data = get_json(server, "/memory.json?project=-work-harbor")
    assert data["layers"][1]["exists"] is False
    assert {b["layer"] for b in data["blocks"]} == {"project"}


def test_current_project_without_memory_is_listed_first(home: Home, serve):
    new = home.root / ".claude" / "projects" / "-work-new" / "memory" / "memory.agd"
    home.settings = home.settings.replace(memory_file=str(new))
    srv = serve(home)
    _, data = get_json(srv, "/projects.json")
    first = data["projects"][0]
    assert (first["key"], first["display"], first["exists"]) == ("~launch", "/work/new", False)
    assert data["initial"] == "~launch"
    assert [p["key"] for p in data["projects"][1:]] == ["-work-harbor", "-work-other"]
    status, memory = get_json(srv, "/memory.json")
    assert status == 200 and memory["key"] == "~launch"
    assert memory["layers"][0] == {
        **memory["layers"][0],
        "exists": False,
        "error": None,
        "blocks": 0,
    }
    assert {b["layer"] for b in memory["blocks"]} == {"global"}
    write(new, home.other.read_text(encoding="utf-8"))  # the first save creates it
    _, memory = get_json(srv, "/memory.json?project=~launch")
    assert "project:other-go" in blocks_by_uid(memory)


def test_launch_file_outside_projects_gets_its_own_key(home: Home, serve, tmp_path):
    elsewhere = write(
        tmp_path / "elsewhere" / "notes.agd", home.other.read_text(encoding="utf-8"), 2_100_000_000
    )
    srv = serve(home, launch_file=elsewhere)
    _, data = get_json(srv, "/projects.json")
    assert data["initial"] == "~launch"
    assert data["projects"][0]["path"] == str(elsewhere)
    _, memory = get_json(srv, "/memory.json?project=~launch")
    assert "project:other-go" in blocks_by_uid(memory)


# -- Host header (DNS rebinding) ----------------------------------------------------


@pytest.mark.parametrize(
    "host",
    [
        "evil.example",
        "evil.example:8765",
        "127.0.0.1.evil.example",
        "localhost.evil.example:80",
        "10.0.0.1",
        None,
    ],
)
def test_foreign_host_is_refused(server, host):
    for path in ("/", "/projects.json", "/memory.json?project=-work-harbor"):
        status, headers, body = request(server, path, host=host)
        assert status == 403
        assert b"blocks" not in body
        assert headers["cache-control"] == "no-store"


@pytest.mark.parametrize("host", ["localhost", "LOCALHOST:{port}", "127.0.0.1", "[::1]:{port}"])
def test_loopback_names_are_accepted(server, host):
    status, _, _ = request(
        server, "/projects.json", host=host.format(port=server.server_address[1])
    )
    assert status == 200


def test_git_remote_names_a_project(home: Home, serve):
    index = home.root / ".claude" / "projects" / ".agd-memory-index.json"
    index.write_text(json.dumps({"github.com/acme/harbor": str(home.project)}), encoding="utf-8")
    _, data = get_json(serve(home), "/projects.json")
    assert [p["remote"] for p in data["projects"]] == ["github.com/acme/harbor", None]


LOOPBACK = st.sampled_from(["127.0.0.1", "localhost", "LocalHost", "[::1]"])
PORT = st.integers(min_value=1, max_value=65535)


@given(name=LOOPBACK, port=st.one_of(st.none(), PORT))
def test_every_loopback_name_with_any_port_is_allowed(name, port):
    assert guard.host_allowed(name if port is None else f"{name}:{port}")


@given(host=st.text(min_size=1, max_size=40))
def test_no_other_host_is_allowed(host):
    name = host.strip().lower()
    if name.startswith("["):
        name = name[: name.find("]") + 1] if "]" in name else name
    else:
        name = name.split(":", 1)[0]
    if name not in ("127.0.0.1", "localhost", "[::1]"):
        assert not guard.host_allowed(host)


@example(host="127.0.0.1:²")  # a Unicode digit is no port: found by hypothesis, kept here
@example(host="localhost:١٢")
@given(host=st.text(max_size=40))
def test_the_host_check_answers_every_header_without_raising(host):
    assert guard.host_refusal([host]) is None or guard.host_refusal([host])[0] in (400, 403)


def test_host_check_rules():
    assert guard.host_allowed("127.0.0.1:8765")
    assert guard.host_allowed("[::1]")
    assert not guard.host_allowed("[::1]x")
    assert not guard.host_allowed("localhost:99999")
    assert not guard.host_allowed("localhost:abc")
    assert not guard.host_allowed("")


# -- assets -------------------------------------------------------------------------


def test_vendor_libraries_come_from_node_modules(tmp_path, monkeypatch):
    monkeypatch.setattr(assets, "REPO_ROOT", tmp_path / "nowhere")
    assert assets.vendor_status(assets.build_table(None)) == {
        "cytoscape": False,
        "markdown_it": False,
    }
    for rel in assets.VENDOR.values():
        write(tmp_path / "plugin" / "node_modules" / rel, "/* lib */")
    table = assets.build_table(tmp_path / "plugin")
    assert assets.vendor_status(table) == {"cytoscape": True, "markdown_it": True}
    assert (
        table["/vendor/cytoscape.min.js"].path
        == tmp_path / "plugin/node_modules/cytoscape/dist/cytoscape.min.js"
    )


def test_projects_json_says_where_to_install_missing_libraries(
    home: Home, serve, monkeypatch, tmp_path
):
    monkeypatch.setattr(assets, "node_modules_dir", lambda root: None)
    monkeypatch.setattr(assets, "REPO_ROOT", tmp_path / "no-lock")  # no fetch from the registry
    srv = serve(home)
    _, data = get_json(srv, "/projects.json")
    assert data["vendor"] == {"cytoscape": False, "markdown_it": False}
    assert data["install_root"]
    status, headers, body = request(srv, "/vendor/cytoscape.min.js")
    assert status == 200 and body.startswith(b"//")  # a comment: no 404 and no error in the page
    assert headers["content-type"].startswith("text/javascript")


# -- binding and the command line ---------------------------------------------------


def test_busy_port_moves_to_the_next_one(home: Home, serve):
    first = serve(home)
    port = first.server_address[1]
    srv = viewer_server.bind(port, first.catalog, first.table)
    try:
        assert srv.server_address[1] != port
        assert srv.server_address[0] == "127.0.0.1"
    finally:
        srv.server_close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_command_prints_url_first_and_stops_when_idle(home: Home):
    port = _free_port()
    env = {**home.env, "PYTHONPATH": str(REPO / "src")}
    # The context manager closes the pipes (left open, they were a ResourceWarning).
    with subprocess.Popen(
        [
            sys.executable,
            str(REPO / "bin" / "agd-memory"),
            "view",
            "--no-open",
            "--port",
            str(port),
            "--idle-exit",
            "2",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        text=True,
    ) as proc:
        try:
            first_line = proc.stdout.readline().strip()
            assert first_line.startswith("http://127.0.0.1:")
            printed = urlsplit(first_line)
            conn = http.client.HTTPConnection("127.0.0.1", printed.port, timeout=5)
            conn.request("GET", f"/projects.json?{printed.query}")
            response = conn.getresponse()
            assert response.status == 200
            response.read()
            conn.close()
            assert proc.wait(timeout=20) == 0  # --idle-exit stopped it
        finally:
            if proc.poll() is None:
                proc.kill()


def test_command_refuses_a_missing_file(home: Home, tmp_path):
    env = {**home.env, "PYTHONPATH": str(REPO / "src")}
    missing = tmp_path / "nope.agd"
    done = subprocess.run(
        [sys.executable, str(REPO / "bin" / "agd-memory"), "view", "--no-open", str(missing)],
        capture_output=True,
        env=env,
        text=True,
        timeout=30,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and str(missing) in done.stderr
    assert "Traceback" not in done.stderr


def test_bad_port_is_a_usage_error(capsys):
    from agd_memory.cli import main

    assert main(["view", "--port", "70000"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: agd-memory view") and "--port 70000" in err


def test_server_binds_loopback_only(server):
    assert server.server_address[0] == "127.0.0.1"


def test_idle_exit_stops_the_server(home: Home, serve):
    srv = serve(home)
    srv.last_request = time.monotonic() - 100
    t0 = time.monotonic()
    viewer_server._stop_when_idle(srv, 0.2)  # returns once it has shut the server down
    assert time.monotonic() - t0 < 5


def test_only_who_has_the_printed_address_reads_the_memory(server):
    """Another local user can reach the port, but not the token in the address the command
    prints (then kept in an HttpOnly cookie), as with a local notebook server."""
    port = server.server_address[1]

    def fetch(path: str, **headers):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", path, headers={"Host": f"127.0.0.1:{port}", **headers})
        resp = conn.getresponse()
        body = resp.read()
        conn.close()
        return resp.status, resp.getheader("Set-Cookie") or "", body

    for path in ("/", "/projects.json", "/memory.json", "/review.json", "/?token=wrong"):
        status, cookie, body = fetch(path)
        assert status == 403 and b"agd-memory view" in body and not cookie, path
    printed = urlsplit(server.url)
    status, cookie, body = fetch(f"/?{printed.query}")
    assert status == 200 and b"<html" in body.lower()
    assert f"agd_viewer_{port}={server.secret}" in cookie
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert server.secret not in body.decode(), "the page never shows the token"
    jar = cookie.split(";", 1)[0]
    assert fetch("/projects.json", Cookie=jar)[0] == 200
    assert fetch("/projects.json", Cookie=f"agd_viewer_{port}=forged")[0] == 403
