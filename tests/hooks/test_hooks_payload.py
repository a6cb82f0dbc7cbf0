"""Normalising Claude Code hook payloads: real captured shapes, and anything else stdin may hold."""

from __future__ import annotations

import io
import json

import pytest
from hookutil import FIXTURES, load_payload
from hypothesis import given
from hypothesis import strategies as st

from agd_memory.claude.hooks import HookPayload, normalize, parse_payload


def test_prompt_payload_gives_prompt_and_cwd() -> None:
    p = normalize(load_payload("prompt-italian"))
    assert p.hook_event_name == "UserPromptSubmit"
    assert p.prompt == "Che cosa sai del database di produzione?"
    assert p.cwd == "/work/project"
    assert p.permission_mode == "default"
    assert p.session_id and p.transcript_path.endswith(".jsonl")


def test_prompt_falls_back_to_user_prompt() -> None:
    # The earlier plugin read only `user_prompt`; Claude Code sends `prompt`. Accept both.
    p = normalize(load_payload("prompt-legacy-user-prompt"))
    assert p.prompt == "and the deploy schedule?"


def test_prompt_wins_over_user_prompt() -> None:
    p = normalize(load_payload("prompt-english", user_prompt="older field"))
    assert p.prompt == "and the deploy schedule?"


@pytest.mark.parametrize("source", ["startup", "resume", "compact"])
def test_session_start_sources(source: str) -> None:
    p = normalize(load_payload(f"session-start-{source}"))
    assert p.hook_event_name == "SessionStart"
    assert p.source == source
    assert p.prompt == ""


def test_session_end_reason() -> None:
    p = normalize(load_payload("session-end-other"))
    assert (p.hook_event_name, p.reason) == ("SessionEnd", "other")
    assert p.raw is not None and p.raw["transcript_path"].endswith(".jsonl")


def test_every_captured_fixture_normalises() -> None:
    files = sorted(FIXTURES.glob("*.json"))
    assert len(files) >= 7
    for path in files:
        p = normalize(json.loads(path.read_text(encoding="utf-8")))
        assert p.cwd == "/work/project", path.name


def test_all_fields_missing() -> None:
    assert normalize({}) == HookPayload(raw={})


def test_wrong_types_become_empty() -> None:
    p = normalize({"prompt": 42, "cwd": ["/x"], "user_prompt": "fallback", "source": None})
    assert (p.prompt, p.cwd, p.source) == ("fallback", "", "")


@pytest.mark.parametrize(
    "raw",
    [b"", b"   \n", b"{not json", b"[1, 2]", b'"text"', b"null", b"\xff\xfe\x00garbage", b"{"],
)
def test_malformed_stdin_gives_empty_payload(raw: bytes) -> None:
    p = parse_payload(raw)
    assert p.prompt == "" and p.cwd == "" and p.hook_event_name == ""


def test_non_utf8_bytes_inside_valid_json_are_replaced() -> None:
    p = parse_payload(b'{"prompt": "caf\xe9 latte", "cwd": "/p"}')
    assert p.cwd == "/p"
    assert p.prompt.startswith("caf") and p.prompt.endswith(" latte")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=20,
)


@pytest.mark.property
@given(json_values)
def test_normalize_never_raises(value: object) -> None:
    p = normalize(value)
    assert isinstance(p.prompt, str) and isinstance(p.cwd, str)


@pytest.mark.property
@given(st.binary(max_size=200))
def test_parse_payload_never_raises(raw: bytes) -> None:
    assert isinstance(parse_payload(raw), HookPayload)


class _Endless:
    """A stdin that never ends (`/dev/zero`), counting what was asked of it."""

    def __init__(self) -> None:
        self.asked = 0

    def read(self, n: int = -1) -> bytes:
        assert n >= 0, "an unbounded read of a stream that never ends"
        self.asked += n
        return b"\0" * n


def test_a_payload_stream_that_never_ends_is_read_up_to_a_bound() -> None:
    from agd_memory.claude.hooks import STDIN_LIMIT, read_stdin

    stream = _Endless()
    assert read_stdin(stream) == b""
    assert stream.asked == STDIN_LIMIT + 1
    assert read_stdin(io.BytesIO(b'{"prompt": "hi"}')) == b'{"prompt": "hi"}'


def test_the_prompt_hook_on_dev_zero_exits_quietly(hook_env) -> None:
    import subprocess
    import sys

    from hookutil import LAUNCHER

    with open("/dev/zero", "rb") as zero:
        done = subprocess.run(
            [sys.executable, str(LAUNCHER), "hook", "prompt"],
            stdin=zero,
            env=hook_env,
            capture_output=True,
            timeout=60,
        )
    assert done.returncode == 0 and done.stdout == b""
