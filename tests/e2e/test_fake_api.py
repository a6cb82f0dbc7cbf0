"""The fake Messages API itself (no `claude` needed): what other e2e tests rely on."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from e2e_harness import FakeAnthropic, Reply


def post(fake: FakeAnthropic, body: dict, path: str = "/v1/messages?beta=true") -> tuple[int, str]:
    request = urllib.request.Request(
        fake.url + path,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "x-api-key": "dummy"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def sse_events(text: str) -> list[tuple[str, dict]]:
    events = []
    for chunk in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in chunk.splitlines())
        events.append((lines["event"], json.loads(lines["data"])))
    return events


TOOLS = [{"name": "mcp__plugin_agd-memory_agd-memory__agd_memory_get", "input_schema": {}}]


def test_non_streaming_text_and_recording() -> None:
    with FakeAnthropic() as fake:
        status, body = post(fake, {"model": "m", "messages": [{"role": "user", "content": "hi"}]})
        assert status == 200
        message = json.loads(body)
        assert message["content"] == [{"type": "text", "text": "FAKE-REPLY: ok."}]
        assert message["stop_reason"] == "end_turn"
        (request,) = fake.requests
        assert request.message_text() == "hi"
        assert request.headers["x-api-key"] == "dummy"


def test_streaming_tool_use_resolves_the_prefixed_tool_name() -> None:
    with FakeAnthropic() as fake:
        fake.script(Reply.tool_use("agd_memory_get", {"id": "x"}, then="Looking."))
        status, body = post(fake, {"stream": True, "tools": TOOLS, "messages": []})
        assert status == 200
        events = sse_events(body)
        names = [name for name, _ in events]
        assert names[0] == "message_start" and names[-1] == "message_stop"
        starts = [data["content_block"] for name, data in events if name == "content_block_start"]
        assert starts[0]["type"] == "text"
        assert starts[1]["name"] == TOOLS[0]["name"]
        deltas = [d["delta"] for n, d in events if n == "content_block_delta"]
        assert deltas[0]["text"] == "Looking."
        assert json.loads(deltas[1]["partial_json"]) == {"id": "x"}
        stop = next(d for n, d in events if n == "message_delta")
        assert stop["delta"]["stop_reason"] == "tool_use"


def test_script_applies_to_conversation_requests_only() -> None:
    with FakeAnthropic() as fake:
        fake.script(Reply.text("scripted"))
        _, side = post(fake, {"messages": []})  # no tools: a side call (title, summary)
        _, main = post(fake, {"tools": TOOLS, "messages": []})
        _, after = post(fake, {"tools": TOOLS, "messages": []})
        assert json.loads(side)["content"][0]["text"] == "FAKE-REPLY: ok."
        assert json.loads(main)["content"][0]["text"] == "scripted"
        assert json.loads(after)["content"][0]["text"] == "FAKE-REPLY: ok."
        assert len(fake.conversation()) == 2


def test_tool_results_are_extracted() -> None:
    with FakeAnthropic() as fake:
        content = [
            {
                "type": "tool_result",
                "tool_use_id": "t1",
                "content": [{"type": "text", "text": "R1"}],
            },
            {"type": "tool_result", "tool_use_id": "t2", "content": "R2"},
        ]
        post(fake, {"tools": TOOLS, "messages": [{"role": "user", "content": content}]})
        assert fake.requests[0].tool_results() == ["R1", "R2"]


def test_count_tokens_and_unknown_paths() -> None:
    with FakeAnthropic() as fake:
        status, body = post(fake, {"messages": []}, path="/v1/messages/count_tokens")
        assert status == 200 and json.loads(body)["input_tokens"] >= 1
        status, _ = post(fake, {}, path="/v1/other")
        assert status == 404


def test_server_stops_when_closed() -> None:
    fake = FakeAnthropic()
    url = fake.url
    fake.close()
    with pytest.raises(OSError):
        urllib.request.urlopen(url + "/v1/messages", data=b"{}", timeout=2)
