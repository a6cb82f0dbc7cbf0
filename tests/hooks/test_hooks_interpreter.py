"""`hooks/run` remembers the interpreter it found and starts it directly the next time.

A version-manager shim (pyenv, asdf) first on PATH costs about 200 ms per start, on every
prompt; the shim's real interpreter (`sys.executable`) costs nothing extra.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from test_hooks_launcher import ECHO, bin_dir, fake_root, run_runner

SHIM = "#!/bin/sh\necho shim-was-started >&2\nexec {python} \"$@\"\n"


def setup(tmp_path: Path, hook_env: dict[str, str]) -> tuple[dict[str, str], Path]:
    shim = SHIM.format(python=sys.executable)
    env = dict(
        hook_env,
        CLAUDE_PLUGIN_ROOT=str(fake_root(tmp_path, ECHO)),
        PATH=str(bin_dir(tmp_path, python3=shim)),
    )
    return env, Path(hook_env["CLAUDE_PLUGIN_DATA"]) / "python-path"


def test_the_real_interpreter_behind_a_shim_is_remembered_and_used(tmp_path, hook_env) -> None:
    env, remembered = setup(tmp_path, hook_env)
    first = run_runner("prompt", b'{"prompt": "a"}', env)
    assert b"shim-was-started" in first.stderr
    assert Path(remembered.read_text()).resolve() == Path(sys.executable).resolve()

    second = run_runner("prompt", b'{"prompt": "b"}', env)
    assert b"shim-was-started" not in second.stderr, "the shim is skipped"
    assert json.loads(second.stdout)["stdin"] == '{"prompt": "b"}'


def test_a_remembered_interpreter_that_is_gone_or_too_old_is_found_again(tmp_path, hook_env) -> None:
    env, remembered = setup(tmp_path, hook_env)
    remembered.parent.mkdir(parents=True, exist_ok=True)
    remembered.write_text(str(tmp_path / "no-such-python"))
    proc = run_runner("prompt", b"{}", env)
    assert json.loads(proc.stdout)["argv"] == ["hook", "prompt"]
    assert Path(remembered.read_text()).resolve() == Path(sys.executable).resolve()

    old = tmp_path / "old-python"
    old.write_text("#!/bin/sh\necho old-python-was-probed >&2\nexit 97\n")
    old.chmod(0o755)
    remembered.write_text(str(old))
    proc = run_runner("session-start", b'{"x": 1}', env)
    assert b"old-python-was-probed" in proc.stderr
    assert json.loads(proc.stdout)["stdin"] == '{"x": 1}', "stdin reaches the interpreter found"
    assert Path(remembered.read_text()).resolve() == Path(sys.executable).resolve()
