"""`agd-memory install-cli [DIR]` and `uninstall-cli [DIR]`: the commands on the user's PATH.

Claude Code puts a plugin's `bin/` on the PATH of its Bash tool only, and the plugin's
folder changes on every update (`~/.claude/plugins/cache/<marketplace>/agd-memory/<version>/`).
So `install-cli` writes two small launchers, `agd-memory` and `agd`, into `~/.local/bin`
(or DIR) that look the plugin up each time they run: a checkout `install-cli` ran from
while it exists (a developer's `--plugin-dir`), else Claude Code's record of installed
plugins (`installed_plugins.json` under `CLAUDE_CODE_PLUGIN_CACHE_DIR`, else the config
folder's `plugins/`; `CLAUDE_CONFIG_DIR`, else `~/.claude`), else the newest copy in the
plugin cache, else the cached copy `install-cli` ran from if it is still there. A launcher carries a marker line,
and `uninstall-cli` removes only files that carry it.

A user of another MCP client installs the package as a Python tool instead
(`pipx install` or `uv tool install` from the repository); the console scripts then are
on PATH already.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from ..errors import UserError
from .args import verb_parser

NAMES = ("agd-memory", "agd")
MARKER = "# agd-memory launcher, written by `agd-memory install-cli`"
PLUGIN_ROOT = Path(__file__).resolve().parents[3]
"""The plugin folder (or checkout) this program runs from: the launchers' last resort."""

# The launcher is POSIX sh around one Python start: the sh part tries the interpreter
# `install-cli` ran under, then the usual names, until one is >= 3.10 (an older one exits
# 97 at once, as in hooks/run), the Python part
# finds the plugin and runs the plugin's own `bin/<name>` in the same process (`-I`: the
# current folder, which may be a cloned repository, is never on `sys.path`). It reads
# `installed_plugins.json` itself, as `settings.installed_plugin_id` does, and finds Claude
# Code's config folder by `settings.claude_dir_from`'s rule (a blank CLAUDE_CONFIG_DIR is
# unset): it runs before the package is found, so it cannot import it.
_LOCATE = r"""
import sys
if sys.version_info < (3, 10):
    sys.exit(97)
import glob, json, os
fallback, name = sys.argv[1], sys.argv[2]
env = os.environ
config = env.get("CLAUDE_CONFIG_DIR", "").strip()
config = os.path.expanduser(config) if config else os.path.join(
    os.path.expanduser(env.get("AGD_MEMORY_HOME") or env.get("HOME") or "~"), ".claude")
plugins = env.get("CLAUDE_CODE_PLUGIN_CACHE_DIR") or os.path.join(config, "plugins")
def usable(root):
    return bool(root) and os.path.isfile(os.path.join(root, "bin", name))
def recorded():
    try:
        with open(os.path.join(plugins, "installed_plugins.json"), "rb") as fh:
            data = json.loads(fh.read(4 << 20))
        found = []
        for key, entries in (data.get("plugins") or {}).items():
            if str(key).split("@")[0] != "agd-memory":
                continue
            for e in entries if isinstance(entries, list) else [entries]:
                if isinstance(e, dict) and usable(e.get("installPath")):
                    found.append((str(e.get("lastUpdated") or ""), e["installPath"]))
        return max(found)[1] if found else None
    except (OSError, ValueError, AttributeError, TypeError):
        return None
def cached():
    roots = [r for r in glob.glob(os.path.join(plugins, "cache", "*", "agd-memory", "*")) if usable(r)]
    return max(roots, key=os.path.getmtime) if roots else None
in_cache = fallback.startswith(os.path.join(plugins, "cache") + os.sep)
root = (fallback if usable(fallback) and not in_cache else None) or recorded() or cached()
root = root or (fallback if usable(fallback) else None)
if root is None:
    sys.stderr.write("%s: the agd-memory plugin is not installed (nothing in %s); install it "
        "in Claude Code with `claude plugin install agd-memory@agd-memory`, or remove this "
        "launcher with `rm %s`\n" % (name, plugins, sys.argv[3]))
    sys.exit(127)
target = os.path.join(root, "bin", name)
sys.argv = [target] + sys.argv[4:]
import runpy
runpy.run_path(target, run_name="__main__")
"""


def launcher_text(name: str, fallback: Path, python: str) -> str:
    """The launcher script for `name` (`agd-memory` or `agd`)."""
    return f"""#!/bin/sh
{MARKER}; `agd-memory uninstall-cli` removes it.
# It finds the installed agd-memory plugin each time it runs, also after an update.
locate={_quote(_LOCATE)}
for py in {_quote(python)} python3 python3.13 python3.12 python3.11 python3.10 python; do
  command -v "$py" >/dev/null 2>&1 || continue
  "$py" -I -c "$locate" {_quote(str(fallback))} {name} "$0" "$@"
  status=$?
  [ "$status" -eq 97 ] || exit "$status"
done
echo "{name}: no Python 3.10 or newer on PATH; install one, then run {name} again" >&2
exit 127
"""


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def default_dir() -> Path:
    return Path(os.path.expanduser("~")) / ".local" / "bin"


def install(folder: Path) -> list[Path]:
    """Write the launchers into `folder` (created when missing); returns what was written.
    A file of the same name that is not one of ours is never replaced."""
    targets = [folder / name for name in NAMES]
    for target in targets:
        if (target.exists() or target.is_symlink()) and not is_ours(target):
            raise UserError(
                f"{target} exists and was not written by install-cli; remove or rename it, "
                "or name another folder: `agd-memory install-cli DIR`"
            )
    folder.mkdir(parents=True, exist_ok=True)
    for target in targets:
        text = launcher_text(target.name, PLUGIN_ROOT, sys.executable)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.chmod(tmp, 0o755)
            os.replace(tmp, target)
        finally:
            if tmp.exists():
                tmp.unlink()
    return targets


def uninstall(folder: Path) -> list[Path]:
    """Remove the launchers install-cli wrote in `folder`; returns what was removed."""
    removed = []
    for name in NAMES:
        target = folder / name
        if is_ours(target):
            target.unlink()
            removed.append(target)
    return removed


def is_ours(path: Path) -> bool:
    if path.is_symlink() or not path.is_file():
        return False
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    lines = head.splitlines()
    return len(lines) > 1 and lines[1].startswith(MARKER)


def on_path(folder: Path) -> bool:
    entries = os.environ.get("PATH", "").split(os.pathsep)
    real = os.path.realpath(folder)
    return any(entry and os.path.realpath(os.path.expanduser(entry)) == real for entry in entries)


def _folder(argv: list[str], verb: str, summary: str, example: str) -> Path:
    p = verb_parser(verb, summary, example)
    p.add_argument("dir", nargs="?", metavar="DIR", help="the folder (default: ~/.local/bin)")
    args = p.parse_args(argv)
    return Path(os.path.expanduser(args.dir)).absolute() if args.dir else default_dir()


def install_cli(argv: list[str]) -> int:
    folder = _folder(
        argv,
        "install-cli",
        "Put the `agd-memory` and `agd` commands on your PATH: two small launchers in DIR "
        "that find the installed plugin each time, also after it is updated.",
        "agd-memory install-cli ~/bin",
    )
    for target in install(folder):
        print(f"wrote {target}")
    if on_path(folder):
        first = shutil.which("agd-memory")
        if first and os.path.realpath(first) != os.path.realpath(folder / "agd-memory"):
            print(
                f"another agd-memory comes first on your PATH: {first}; remove it or put "
                f"{folder} before its folder"
            )
        else:
            print("run `agd-memory --help` in a new shell to start")
    else:
        print(
            f"{folder} is not on your PATH; add this line to your shell's profile "
            f'(~/.profile, ~/.bashrc or ~/.zshrc), then open a new shell: export PATH="{folder}:$PATH"'
        )
    return 0


def uninstall_cli(argv: list[str]) -> int:
    folder = _folder(
        argv,
        "uninstall-cli",
        "Remove the launchers `install-cli` wrote in DIR (nothing else).",
        "agd-memory uninstall-cli ~/bin",
    )
    removed = uninstall(folder)
    for target in removed:
        print(f"removed {target}")
    if not removed:
        print(f"no launcher written by install-cli in {folder}; nothing removed")
    return 0
