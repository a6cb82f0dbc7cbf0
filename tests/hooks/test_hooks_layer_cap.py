"""A layer with more entries than a hook can afford (a committed team file of 30,000 empty
entries here; 400,000 in the attack that found it) is left out of the hooks, the user is told
once, and the other layers keep working."""

from __future__ import annotations

import json

from hookutil import context_of, run_hook, write_layer

PROJECT = (
    '@meta format=agd version=1 [#meta]\n\n@x-project desc="invoices are queued on Postgres '
    'with SKIP LOCKED" keys="billing queue, invoices" [#billing-queue]\n~~~\nworkers poll.\n~~~\n'
)


def test_a_huge_team_file_is_left_out_and_the_project_layer_still_recalls(hook_env, tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".claude").mkdir()
    team = repo / ".claude" / "memory.agd"
    team.write_text(
        "@meta format=agd version=1 [#meta]\n\n"
        + "".join(f"@x-a [#e{i}]\n\n" for i in range(30_000))
    )
    write_layer(hook_env, repo, PROJECT)
    payload = {"cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup"}
    started = run_hook("session-start", payload, hook_env)
    told = json.loads(started.stdout)
    assert "has 30000 entries" in told["systemMessage"] and str(team) in told["systemMessage"]
    toc = told["hookSpecificOutput"]["additionalContext"]
    assert "#billing-queue" in toc and "#e1 " not in toc
    again = run_hook("session-start", payload, hook_env)
    assert "has 30000 entries" not in again.stdout, "told once"

    prompt = {"cwd": str(repo), "hook_event_name": "UserPromptSubmit",
              "prompt": "how does the billing queue work with invoices"}  # fmt: skip
    recalled = context_of(run_hook("prompt", prompt, hook_env).stdout, "UserPromptSubmit")
    assert "#billing-queue" in recalled


def test_a_large_layer_is_counted_once_per_version_of_the_file(hook_env, tmp_path, monkeypatch):
    # Counting reads the whole file: a prompt on a 10,000-block memory paid ~9 ms for it
    # every time. The count is kept under the file's identity until the file changes.
    import agd.files
    from agd_memory.claude import hooks
    from agd_memory.settings import Settings

    settings = Settings.load()
    big = tmp_path / "memory.agd"
    big.write_text(
        "@meta format=agd version=1 [#meta]\n\n" + "".join(f"@x-a [#e{i}]\n\n" for i in range(9))
    )
    assert hooks._entry_count(settings, big) == 9
    read_bytes = agd.files.read_bytes

    def unread(*args, **kwargs):
        raise AssertionError("the file was read again although it did not change")

    monkeypatch.setattr(agd.files, "read_bytes", unread)
    assert hooks._entry_count(settings, big) == 9
    monkeypatch.setattr(agd.files, "read_bytes", read_bytes)
    with big.open("a") as fh:
        fh.write("@x-a [#e9]\n\n")
    assert hooks._entry_count(settings, big) == 10


def test_a_layer_of_few_huge_entries_is_left_out_by_its_size(hook_env, tmp_path):
    # 300 entries of 50 KB (15 MB, under the entry cap and the 64 MiB file limit) ran the
    # first prompt hook into its 5 s limit while indexing, and every prompt after a kill.
    from agd_memory.claude.hooks import HOOK_MAX_BYTES

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".claude").mkdir()
    team = repo / ".claude" / "memory.agd"
    body = "billing queue invoices " * 2200
    n = HOOK_MAX_BYTES // len(body) + 2
    team.write_text(
        "@meta format=agd version=1 [#meta]\n"
        + "".join(f'\n@x-project desc="billing {i}" [#t{i}]\n~~~\n{body}\n~~~\n' for i in range(n))
    )
    write_layer(hook_env, repo, PROJECT)
    payload = {"cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup"}
    told = json.loads(run_hook("session-start", payload, hook_env).stdout)
    assert str(team) in told["systemMessage"] and "MiB a hook reads" in told["systemMessage"]
    assert "#t1" not in told["hookSpecificOutput"]["additionalContext"]
    assert "MiB a hook reads" not in run_hook("session-start", payload, hook_env).stdout

    prompt = {"cwd": str(repo), "hook_event_name": "UserPromptSubmit",
              "prompt": "how does the billing queue work with invoices"}  # fmt: skip
    recalled = context_of(run_hook("prompt", prompt, hook_env).stdout, "UserPromptSubmit")
    assert "#billing-queue" in recalled and "#t1" not in recalled
