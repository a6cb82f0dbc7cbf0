"""The secret detector's corpus (tests/data/secrets/): the shapes it must catch and the
ordinary texts it must leave alone. Shared by tests/store/test_secrets.py and
benchmarks/secrets.py.

The files hold templates, not credentials: `«class:n»` becomes n characters drawn from a
generator seeded by the entry's title, so the values are stable, random-looking and fake,
and no scanner (GitHub push protection, gitleaks) ever sees a token-shaped string in git.
`«pem64:LABEL:n»` is the base64 of a PEM block of that label with n random characters in
it, as a kubeconfig holds them.
"""

from __future__ import annotations

import base64
import random
import re
import string
from pathlib import Path
from typing import NamedTuple

FOLDER = Path(__file__).resolve().parents[1] / "data" / "secrets"

CLASSES = {
    "an": string.ascii_letters + string.digits,
    "alpha": string.ascii_letters,
    "up": string.ascii_uppercase + string.digits,
    "low": string.ascii_lowercase + string.digits,
    "hex": "0123456789abcdef",
    "dig": string.digits,
    "b64": string.ascii_letters + string.digits + "+/",
    "url": string.ascii_letters + string.digits + "_-",
    "bech": "023456789ACDEFGHJKLMNPQRSTUVWXYZ",
}
_SLOT = re.compile(r"«([a-z0-9]+):(?:([A-Z ]+):)?(\d+)»")


class Entry(NamedTuple):
    title: str
    """`<kind> | <what>` for a secret, `<what>` for an ordinary text."""
    text: str

    @property
    def kind(self) -> str:
        return self.title.split(" | ", 1)[0]


def load(name: str) -> list[Entry]:
    """The entries of `secrets.txt` or `ordinary.txt`, their slots filled."""
    entries: list[Entry] = []
    title, lines = "", []
    for line in (FOLDER / name).read_text(encoding="utf-8").splitlines():
        if line.startswith("%% "):
            if title:
                entries.append(_entry(title, lines))
            title, lines = line[3:], []
        elif title:
            lines.append(line)
    if title:
        entries.append(_entry(title, lines))
    return entries


def _entry(title: str, lines: list[str]) -> Entry:
    rng = random.Random(title)

    def fill(m: re.Match[str]) -> str:
        kind, label, n = m[1], m[2], int(m[3])
        if kind == "pem64":
            body = "".join(rng.choices(CLASSES["b64"], k=n))
            pem = f"-----BEGIN {label}-----\n{body}\n-----END {label}-----\n"
            return base64.b64encode(pem.encode()).decode()
        return "".join(rng.choices(CLASSES[kind], k=n))

    return Entry(title, _SLOT.sub(fill, "\n".join(lines)))
