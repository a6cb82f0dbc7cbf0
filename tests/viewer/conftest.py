"""Fixtures for the viewer tests: a home folder with two projects and a global layer, servers."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from viewer_fixtures import GLOBAL_MEMORY, OTHER_MEMORY, Home, make_home, project_memory, write

from agd_memory.viewer import server as viewer_server


@pytest.fixture
def home(tmp_path: Path) -> Home:
    root = tmp_path / "home"
    projects = root / ".claude" / "projects"
    project = write(
        projects / "-work-harbor" / "memory" / "memory.agd", project_memory(), 2_000_000_000
    )
    other = write(projects / "-work-other" / "memory" / "memory.agd", OTHER_MEMORY, 1_900_000_000)
    global_ = write(root / ".claude" / "memory" / "global.agd", GLOBAL_MEMORY)
    return make_home(tmp_path, project, other, global_)


@pytest.fixture
def serve():
    """Start a viewer for a `Home` on a free port; every server is stopped at teardown."""
    started: list[viewer_server.ViewerServer] = []

    def start(h: Home, **kw) -> viewer_server.ViewerServer:
        srv = viewer_server.make_server(h.settings, port=0, **kw)
        threading.Thread(
            target=srv.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True
        ).start()
        started.append(srv)
        return srv

    start.started = started  # the tests that stop a server themselves find it here
    yield start
    for srv in started:
        srv.shutdown()
        srv.server_close()


@pytest.fixture
def server(home: Home, serve) -> Iterator[viewer_server.ViewerServer]:
    return serve(home)
