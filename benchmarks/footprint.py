"""Install footprint: what Claude Code copies when the plugin is installed from a checkout.

Adds the checkout (`--root`, default this one) as a local marketplace and installs
`agd-memory@agd-memory` with the real `claude` CLI in a throw-away HOME, then counts the
files and bytes of the installed copy (`~/.claude/plugins/cache/...`, symlinks counted as
links, never followed) and of everything Claude Code keeps under `~/.claude/plugins/`.
Claude Code runs `npm install` in the copy itself when npm is on PATH; `--without-npm`
hides npm (PATH holds only `node` and `git`), as on a machine without it.

    python3 benchmarks/footprint.py [--root CHECKOUT] [--without-npm] [--claude PATH]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLAUDE = ROOT / ".cache" / "claude-code-2.1.332" / "node_modules" / ".bin" / "claude"


def tally(folder: Path) -> tuple[int, int]:
    """(files, bytes) under `folder`, symlinks counted as themselves and not followed."""
    files = size = 0
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in filenames + [d for d in dirnames if (Path(dirpath) / d).is_symlink()]:
            files += 1
            size += (Path(dirpath) / name).lstat().st_size
    return files, size


def run(claude: str, args: list[str], env: dict[str, str], cwd: Path) -> None:
    done = subprocess.run(
        [claude, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=300
    )
    if done.returncode != 0:
        sys.exit(f"footprint: claude {' '.join(args)} failed: {done.stderr.strip() or done.stdout}")


def measure(root: Path, claude: str, without_npm: bool) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="agd-footprint-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        path = os.environ.get("PATH", "")
        if without_npm:
            bin_dir = Path(tmp) / "bin"
            bin_dir.mkdir()
            for tool in ("node", "git"):
                found = shutil.which(tool)
                if found:
                    (bin_dir / tool).symlink_to(found)
            path = str(bin_dir)
        env = {"HOME": str(home), "PATH": path, "LANG": "C.UTF-8"}
        run(claude, ["plugin", "marketplace", "add", str(root)], env, home)
        run(claude, ["plugin", "install", "agd-memory@agd-memory"], env, home)
        plugins = home / ".claude" / "plugins"
        copies = [p.parent for p in (plugins / "cache").glob("*/*/*/.claude-plugin")]
        if len(copies) != 1:
            sys.exit(f"footprint: expected one installed copy under {plugins / 'cache'}: {copies}")
        copy = copies[0]
        files, size = tally(copy)
        all_files, all_size = tally(plugins)
        top = sorted(
            ((tally(p)[1] if p.is_dir() else p.lstat().st_size, p.name) for p in copy.iterdir()),
            reverse=True,
        )
        return {
            "files": files,
            "bytes": size,
            "plugins_files": all_files,
            "plugins_bytes": all_size,
            "node_modules": (copy / "node_modules" / "cytoscape").is_dir(),
            "largest": top[:5],
            "symlinks_copied": [p.name for p in copy.iterdir() if p.is_symlink()],
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to install")
    parser.add_argument("--claude", default=os.environ.get("AGD_E2E_CLAUDE") or str(CLAUDE))
    parser.add_argument("--without-npm", action="store_true", help="hide npm from Claude Code")
    args = parser.parse_args()
    if not Path(args.claude).exists():
        sys.exit(f"footprint: no claude CLI at {args.claude}: run `bash scripts/test` once")
    result = measure(args.root.resolve(), args.claude, args.without_npm)
    mib = 1024 * 1024
    print(f"checkout: {args.root.resolve()}  (npm {'hidden' if args.without_npm else 'on PATH'})")
    print(f"installed copy: {result['files']:,} files, {result['bytes'] / mib:.1f} MiB")
    print(
        f"~/.claude/plugins in all: {result['plugins_files']:,} files, "
        f"{result['plugins_bytes'] / mib:.1f} MiB"
    )
    print(f"node_modules with cytoscape in the copy: {'yes' if result['node_modules'] else 'no'}")
    print("largest entries: " + ", ".join(f"{n} {s / mib:.1f} MiB" for s, n in result["largest"]))
    print(f"top-level symlinks copied: {result['symlinks_copied'] or 'none'}")


if __name__ == "__main__":
    main()
