"""Secret-shaped strings: found before they are written to memory, or redacted.

Memory files are plain text that is injected into model context and often synced
or shared, so a save that holds a credential is refused (the caller can override)
and unattended writers (the distiller) redact instead.

The detector is a table of provider patterns, most specific first, plus two
heuristics: `password=`-style assignments of a literal value, and long tokens
with high character entropy. The heuristics are tuned to leave ordinary prose,
git hashes, UUIDs, paths and identifiers alone: a long token must mix upper case,
lower case and digits (hex digests and UUIDs never do) and carry close to random
entropy.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    kind: str
    """What it looks like, for the message: `GitHub token`, `private key`, ..."""
    line: int
    """1-based line of the text where it starts."""
    excerpt: str
    """A few leading characters and `…`: enough to find it, never the secret itself."""
    start: int = 0
    """Character offset of the secret's value in the text."""
    end: int = 0
    """Character offset just past it."""


# (kind, pattern). The whole match, or group `v` when present, is the secret.
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(rx))
    for kind, rx in (
        (
            "private key",
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*)",
        ),
        ("AWS access key id", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
        (
            "AWS secret access key",
            r"(?i)aws_?secret_?(?:access_?)?key\s*[\"']?\s*[:=]\s*[\"']?(?P<v>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        ),
        ("Google API key", r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])"),
        ("Google OAuth token", r"\bya29\.[0-9A-Za-z_\-]{20,}"),
        ("GCP service-account key", r"\"private_key_id\"\s*:\s*\"(?P<v>[0-9a-f]{40})\""),
        ("Azure storage key", r"(?i)AccountKey=(?P<v>[A-Za-z0-9+/]{40,}={0,2})"),
        ("Azure SAS signature", r"(?i)[?&]sig=(?P<v>[A-Za-z0-9%+/]{30,}={0,2})"),
        (
            "Azure client secret",
            r"(?<![A-Za-z0-9_~.\-])[A-Za-z0-9_~.\-]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}(?![A-Za-z0-9_~.\-])",
        ),
        ("GitHub token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
        ("GitLab token", r"\bgl(?:pat|dt|rt|ptt|ft|cbt|oas|imt|agent)-[A-Za-z0-9_\-]{20,}"),
        ("Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
        (
            "Slack webhook",
            r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_/]{20,}",
        ),
        ("Stripe key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|\bwhsec_[A-Za-z0-9]{24,}"),
        ("Anthropic API key", r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
        (
            "OpenAI API key",
            r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}|\bsk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|\bsk-(?!ant-)[A-Za-z0-9]{40,}\b",
        ),
        ("npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),
        ("PyPI token", r"\bpypi-AgE[A-Za-z0-9_\-]{50,}"),
        (
            "JSON web token",
            r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        ),
        (
            "bearer token",
            r"(?i)\bbearer\s+(?P<v>[A-Za-z0-9\-._~+/]*[0-9][A-Za-z0-9\-._~+/]*={0,2})",
        ),
        (
            "credentials in a URL",
            r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:(?P<v>[^\s@/]{6,})@[A-Za-z0-9.-]+",
        ),
    )
)

_ASSIGNMENT = re.compile(
    r"(?i)(?<![A-Za-z0-9])(?P<key>[A-Za-z0-9_.-]*?(?:password|passwd|passphrase|pwd|secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|client[_-]?secret|private[_-]?key|token))"
    r"[\"']?\s*(?::=|=>|[:=])\s*"
    r"(?:\"(?P<dq>[^\"\n]*)\"|'(?P<sq>[^'\n]*)'|(?P<bare>[^\s,;\"'`)\]}]+))"
)

_TOKEN = re.compile(r"[A-Za-z0-9+/_\-=]{32,}")
_PLACEHOLDER = re.compile(
    r"(?i)^(?:<[^>]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%[A-Za-z_]+%|\{\{.*\}\}|\*+|x+|\.+|-+|"
    r"none|null|nil|true|false|undefined|redacted|\[redacted[^\]]*\]|changeme|example|"
    r"your[_-].*|my[_-].*|xxx.*|\.\.\.|…)$"
)
_MIN_BEARER = 20


def find(text: str) -> list[Finding]:
    """Every secret-shaped string in `text`, in order, without overlaps."""
    found: list[Finding] = []
    taken: list[tuple[int, int]] = []

    def add(kind: str, start: int, end: int) -> None:
        if any(start < e and s < end for s, e in taken):
            return
        taken.append((start, end))
        line = text.count("\n", 0, start) + 1
        found.append(Finding(kind, line, _excerpt(text[start:end]), start, end))

    for kind, rx in PATTERNS:
        for m in rx.finditer(text):
            start, end = m.span("v") if "v" in rx.groupindex else m.span()
            if start < 0:
                continue
            if kind == "bearer token" and (end - start < _MIN_BEARER or _looks_plain(m.group("v"))):
                continue
            add(kind, start, end)

    for m in _ASSIGNMENT.finditer(text):
        for group in ("dq", "sq", "bare"):
            if m.group(group) is not None:
                start, end = m.span(group)
                break
        value = text[start:end]
        if _is_secret_value(value, quoted=group != "bare"):
            add("password or secret assignment", start, end)

    for m in _TOKEN.finditer(text):
        token = m.group().strip("=")
        if _high_entropy(token):
            add("high-entropy token", m.start(), m.start() + len(token))

    found.sort(key=lambda f: f.start)
    return found


def redact(text: str) -> str:
    """`text` with every finding replaced by `[REDACTED:<kind>]`."""
    out: list[str] = []
    pos = 0
    for f in find(text):
        out.append(text[pos : f.start])
        out.append(f"[REDACTED:{f.kind}]")
        pos = f.end
    out.append(text[pos:])
    return "".join(out)


def describe(content: str, desc: str | None = None) -> str | None:
    """What a save would refuse, for its message, or None when nothing secret-shaped is found:
    `a GitHub token (ghp_…) in content line 3 (and 1 more)`. The desc is looked at first."""
    found = [("desc", f) for f in find(desc or "")]
    found += [(f"content line {f.line}", f) for f in find(content)]
    if not found:
        return None
    where, first = found[0]
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    article = "an" if first.kind[:1].lower() in "aeiou" else "a"
    return f"{article} {first.kind} ({first.excerpt}) in {where}{more}"


def _excerpt(secret: str) -> str:
    first_line = secret.split("\n", 1)[0]
    if first_line.startswith("-----BEGIN"):
        return first_line
    return first_line[:4] + "…"


def _looks_plain(value: str) -> bool:
    """`Bearer` followed by ordinary words or a short number is prose, not a token."""
    return value.isdigit() or not re.search(r"[A-Za-z]", value)


def _is_secret_value(value: str, *, quoted: bool) -> bool:
    v = value.strip()
    if len(v) < (4 if quoted else 8) or _PLACEHOLDER.match(v):
        return False
    if not quoted:
        # Code and prose: `password=get_password()`, `token: self.token`, `secret=os.environ[...]`,
        # `api_key=API_KEY`: identifiers and dotted names are references, not values.
        if re.fullmatch(r"[A-Za-z_]+", v):
            return False
        if v.startswith(("$", "%", "{", "<", "(", "[")) or "(" in v or "[" in v:
            return False
        if re.match(r"[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_]", v):
            return False  # attribute access: `config.secret`, `os.environ`
    return True


def _high_entropy(token: str) -> bool:
    if len(token) < 32:
        return False
    if not (re.search(r"[a-z]", token) and re.search(r"[A-Z]", token)):
        return False  # hex digests, UUIDs, lower-case slugs
    if len(re.findall(r"[0-9]", token)) < 2:
        return False  # CamelCaseIdentifiers and prose glued together
    if token.count("/") >= 2 and all(len(p) <= 24 for p in token.split("/")):
        return False  # a path
    if token.count("_") + token.count("-") >= 3 and all(
        len(p) <= 16 for p in re.split(r"[_\-]", token)
    ):
        return False  # snake_case / kebab-case names
    words = sum(len(w) for w in re.findall(r"[A-Z]?[a-z]{4,}", token))
    if words * 2 > len(token):
        return False  # mostly dictionary-like runs: CamelCase names, glued prose
    # About the 2nd percentile of random base62/base64 strings of that length.
    return _entropy(token) >= min(4.9, math.log2(len(token)) - 0.85)


def _entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())
