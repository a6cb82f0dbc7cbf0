"""Secret-shaped strings: found before they are written to memory, or redacted.

Memory files are plain text that is injected into model context and often synced
or shared, so a save that holds a credential is refused (the caller can override)
and unattended writers (the distiller) redact instead.

`find` runs four rules over the text, the most specific first; where two overlap the
first wins, so a finding's kind is the most precise one known:

1. Vendor tokens: the table in `secret_shapes` of known prefixes and shapes (GitHub `ghp_`,
   Slack `xapp-`, AWS `AKIA`, Stripe `sk_live_`, PEM private keys, URLs with a password, ...).
2. Assignments: `NAME=value`, `NAME: value`, `"name": "value"` where a word part of
   NAME is a credential word (`DB_PASS`, `clientSecret`, `X-API-Key`) and the value is a
   literal, not a reference (`os.environ[...]`, `${TOKEN}`, `settings.KEY`). A password
   made of letters only (`DB_PASSWORD=hunterlime`) or a passphrase of a few words counts
   where a password-named setting holds a literal: a line of its own (env, INI, YAML,
   properties, compose), a connection string (`...;Password=x;`), a libpq list, a quoted
   string; placeholders (`${VAR}`, `$VAR`, `<password>`, `changeme`, `***`), constants,
   camelCase variables and labels (`Enter your password`) do not.
3. Prose: a random-looking value right after a credential word ("the API key is ...",
   `password hunter2` in a netrc).
4. Any long token with close to random entropy, mixed case and digits.

Public material is not a secret: the bodies of certificates, public keys and signatures
(PEM, PGP), SSH public keys and certificates, integrity hashes (`sha512-...`, go.sum
`h1:...`), `data:` URIs, base64 images and Stripe publishable keys are masked from rules
2-4 (also in `secret_shapes`), and base64 that decodes to text is data. Placeholders (`<your-token>`, `xxxx`, `${TOKEN}`, `changeme`, `ghp_xxxx...`) are
not secrets either. Hex digests and UUIDs never mix case, so rule 4 leaves them alone;
a hex value counts only as an assigned literal or right after a credential word.

A finding carries its kind and span, and an excerpt that never shows the secret: the
vendor prefix (`ghp_…`), the name or word before the value (`DB_PASS=…`), or its length.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import math
import re
from collections import Counter
from dataclasses import dataclass

from .secret_shapes import EXACT_HINTS, FOLDED_HINTS, PATTERNS, PUBLIC


@dataclass(frozen=True)
class Finding:
    kind: str
    """What it looks like, for the message: `GitHub token`, `password or secret assignment`."""
    line: int
    """1-based line of the text where it starts."""
    excerpt: str
    """What locates it without showing it: the vendor prefix (`ghp_…`), the name before the
    value (`DB_PASS=…`, `password …`), a PEM BEGIN line, or the length (`40 characters`)."""
    start: int = 0
    """Character offset of the secret's value in the text."""
    end: int = 0
    """Character offset just past it."""


ASSIGNMENT = "password or secret assignment"
NEAR_WORD = "secret next to a credential word"
HIGH_ENTROPY = "high-entropy token"

# `NAME=value`, `NAME: value`, `"name": "value"`, `name := value`, `name => value`, matched
# from a credential word inside NAME (its start is found by walking back; the word parts are
# checked by `_credential_name`). `key:value` with no space is a namespaced name
# (`arn:...:secret:prod/db`), not an assignment.
_ASSIGNMENT = re.compile(
    r"(?:pass|pw|secret|token|key|cred|auth|pat)(?=(?P<rest>[\w.\-]{0,64}))(?P=rest)"  # (no backtracking)
    r"(?:>(?P<xml>[^<\n]+)</"  # <password>value</password>
    r"|(?:[\"'][ \t]*(?::=|=>|[:=])|[ \t]*(?::=|=>|=)|[ \t]*:(?=[ \t\"']))[ \t]*"
    r"(?:\"(?P<dq>[^\"\n]*)\"|'(?P<sq>[^'\n]*)'|(?P<bare>[^\s,;\"'`)\]}]+)))"
)
_ASSIGNMENT_STEMS = ("pass", "pw", "secret", "token", "key", "cred", "auth", "pat")
_NAME_END = re.compile(r"[\w.\-]{0,64}")
_NAME_MAX = 64  # how far back a name may start before its credential word
_NAME_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_CREDENTIAL_PARTS = frozenset(
    {
        "pass",
        "passwd",
        "password",
        "pwd",
        "pw",
        "passphrase",
        "secret",
        "token",
        "apikey",
        "credential",
        "credentials",
        "pat",
        "creds",
        "authtoken",
    }
)
_GLUED = ("password", "passwd", "secret", "token", "apikey")  # `PGPASSWORD`, `npmtoken`
_KEY_QUALIFIERS = frozenset(
    {"api", "access", "secret", "private", "signing", "encryption", "master", "license", "app"}
)
# A name ending in one of these holds something about the secret, not the secret.
_NOT_A_VALUE = frozenset(
    {
        "url",
        "uri",
        "endpoint",
        "host",
        "file",
        "path",
        "dir",
        "name",
        "type",
        "length",
        "len",
        "min",
        "max",
        "size",
        "count",
        "env",
        "var",
        "field",
        "header",
        "policy",
        "ttl",
        "expiry",
        "expires",
        "expiration",
        "timeout",
        "id",
        "ids",
        "hash",
        "digest",
        "prompt",
        "label",
        "hint",
        "format",
        "mode",
        "enabled",
        "required",
        "store",
        "manager",
        "provider",
        "service",
        "method",
        "kind",
        "scope",
        "scopes",
        "validators",
        "reset",
        "limit",
        "version",
        "ref",
        "source",
        "location",
        "regex",
        "pattern",
        "flag",
        "input",
        "placeholder",
        "lifetime",
        "backend",
        "class",
        "budget",
    }
)

# Plain passwords (`_plain_password`): names, where a literal is written, and what a
# password made of letters is not.
_PASSWORD_PARTS = frozenset({"pass", "passwd", "password", "pwd", "pw", "passphrase"})
# Before the name on its line: nothing (an env, INI or YAML line), `export `, `- ` (a compose
# list), a quote, or a `;`/`&`/space-separated list (`Server=x;Password=y`, libpq's
# `host=x password=y`).
_SETTING_START = re.compile(
    r"[ \t]*(?:export[ \t]+|-[ \t]+)?[\"']?|.*[;&?][ \t]*|(?:[^\s=]+=\S*[ \t]+)+"
)
# After a value: the end of its line (a comment may follow), `;` or `&` (connection strings,
# queries) or the next `key=` of a libpq list; or more words on their line (a passphrase).
_REST_OF_LINE = re.compile(
    r"(?P<end>[ \t]*(?:$|[;&]|[ \t]#|[ \t]+[A-Za-z_]+=))"
    r"|(?P<words>(?:[ \t]+[A-Za-z][A-Za-z\-]*){1,7})[ \t]*(?:$|[ \t]#)",
    re.M,
)
_LETTERS_OR_HYPHEN = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")
# A YAML tag says how to read the value that follows it; it is never the value itself.
# Followed by a block scalar indicator ending its line (`password: !vault |`, Ansible's
# vault-encrypted variable), the value is on the lines below (ciphertext, checked like any
# other text). Followed by a value on its line (`password: !secret wifi_password`, Home
# Assistant's reference into secrets.yaml; `password: !!str hunter2isMyPw`), that value is
# judged as the setting's value.
_YAML_TAG_NAME = r"!!?[A-Za-z_][\w.:/-]*[ \t]+"
_YAML_BLOCK_INDICATOR = r"[|>][+-]?[1-9]?[+-]?"
_YAML_TAG = re.compile(rf"{_YAML_TAG_NAME}(?:{_YAML_BLOCK_INDICATOR}[ \t]+)?")
_YAML_TAG_BLOCK = re.compile(rf"{_YAML_TAG_NAME}{_YAML_BLOCK_INDICATOR}[ \t]*(?:#.*)?$", re.M)
_YAML_TAGGED_VALUE = re.compile(
    r"\"(?P<dq>[^\"\n]*)\"|'(?P<sq>[^'\n]*)'|(?P<bare>[^\s,;\"'`)\]}]+)"
)
_INNER_CAPITAL = re.compile(r"[a-z][A-Z]")
_CREDENTIAL_WORDS_IN_VALUE = ("pass", "pwd", "secret", "token", "credential")
_CODE_WORDS = frozenset(
    {
        "getpass",
        "input",
        "prompt",
        "value",
        "values",
        "params",
        "kwargs",
        "request",
        "config",
        "settings",
        "options",
        "environ",
        "result",
        "response",
        "string",
        "optional",
        "required",
        "nullable",
        "unknown",
        "missing",
        "random",
        "generated",
        "hashed",
        "encrypted",
        "private",
        "public",
        "static",
        "final",
        "const",
        "return",
    }
)
_LABEL_WORDS = frozenset(
    {
        "a", "an", "the", "your", "my", "enter", "type", "is", "are", "be", "must", "should",
        "please", "see", "use", "set", "in", "from", "for", "of", "to", "at", "with", "via",
        "not", "never", "no", "new", "old", "current", "confirm", "repeat", "forgot", "reset",
        "here", "this", "that", "it", "will", "can",
    }
)  # fmt: skip

# A credential word in prose, or an AWS key id (its secret key often follows); on the
# lower-cased text, the word's start checked in `find`.
_WORD = re.compile(
    r"(?:(?P<pw>pass(?:word|wd|phrase)?|pwd)|secret|token|api[ _\-]?key|access[ _\-]?key"
    r"|private[ _\-]?key|credentials?|auth|(?:akia|asia)[0-9a-z]{16})\b"
)
_WORD_STEMS = (
    "pass",
    "pwd",
    "secret",
    "token",
    "api",
    "access",
    "private",
    "credential",
    "auth",
    "akia",
    "asia",
)
# (a value does not end with a full stop: `password.` ends a sentence)
_VALUE_START = re.compile(r"(?<![\w+/.~\-])(?=[\w+/.~\-&!@#%^*]{6})")
_WORD_VALUE = re.compile(r"(?<![\w+/.~\-])[\w+/.~\-&!@#%^*]{5,}[\w+/~\-&!@#%^*]={0,2}")
# What may stand between a password word and its value: `password hunter2`, `password is ...`,
# `password for staging is ...`, `password: "..."`.
_CONNECTOR = re.compile(
    r"(?i)[\s\"'`]*(?:(?:(?:for|of|on)\s+(?:the\s+)?[\w.\-]+\s*)?(?:is|was|[:=])[\s\"'`]*)?"
)
_WINDOW = 48  # how far after a credential word its value may start
_VALUE_MAX = 512  # (a longer token is left to the high-entropy scan)

_PEM_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]+-----")
_CAMEL_CASE = re.compile(
    r"[a-z]*(?:[A-Z]+[a-z]{2,})*[A-Z]*\d*"
)  # `ApiKeyHeader`, `getHTTPResponse2`
# Character tests of the value heuristics, compiled once.
_ATTRIBUTE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_]")
_AWS_SECRET = re.compile(r"[A-Za-z0-9/+]{40}")
_DIGIT = re.compile(r"[0-9]")
_HEX = re.compile(r"[0-9a-fA-F]+")
_LETTER = re.compile(r"[A-Za-z]")
_LETTERS = re.compile(r"[A-Za-z]+")
_LOWER = re.compile(r"[a-z]")
_NAME_CHARS = re.compile(r"[A-Za-z_\-]+")
_NOT_DIGIT = re.compile(r"[^\d]")
_NOT_LETTER = re.compile(r"[^A-Za-z]")
_NUMBER = re.compile(r"[\d*+\-/._]+")
_PATH = re.compile(r"[a-z0-9._\-]+(?:/[a-z0-9._\-]+)+")
_PATH_PART = re.compile(r"[a-z0-9._\-]*")
_PROSE = re.compile(r"[A-Za-z]+(?:[ ,.'-]+[A-Za-z]+)+[.!?]?")
_SEPARATOR = re.compile(r"[\-_.]")
_SNAKE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*_[A-Za-z0-9_]*")
_SNAKE_SEPARATOR = re.compile(r"[_\-]")
_UPPER = re.compile(r"[A-Z]")
_WORD_RUN = re.compile(r"[A-Z]?[a-z]{4,}")
_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}
_TOKEN = re.compile(r"[A-Za-z0-9+/_\-]{32,}={0,3}")
_PLACEHOLDER = re.compile(
    r"(?i)^(?:<[^>]*>|\$.*|%[A-Za-z_]+%|\{.*\}|[x*.\-]+|"
    r"none|null|nil|true|false|undefined|redacted|\[redacted[^\]]*\]|changeme|change[_-]me|"
    r"replace[_-]?me|example|sample|dummy|test|testing|placeholder|todo|tbd|secret|password|"
    r"passwd|pass|pwd|pw|token|tok|string|str|int|bool|boolean|number|required|optional|hidden|masked|"
    r"default|empty|your[_-].*|my[_-].*|.*_here|.*\.\.\.|.*…)$"
)
# A value made up for documentation or tests: `sk-ant-e2e-dummy-key`, `fake_token_123`.
_MADE_UP = re.compile(
    r"(?i)(?<![a-z])(?:dummy|fake|example|sample|placeholder|changeme|redacted)(?![a-z])"
)


def find(text: str) -> list[Finding]:
    """Every secret-shaped string in `text`, in order, without overlaps."""
    found: list[tuple[int, int, str, str]] = []
    taken = _Spans()
    low = text.translate(_ASCII_LOWER)  # same length and offsets as `text`
    present = {h for h in FOLDED_HINTS if h in low} | {h for h in EXACT_HINTS if h in text}
    free = taken.free

    def add(kind: str, start: int, end: int, excerpt: str) -> None:
        if taken.take(start, end):
            found.append((start, end, kind, excerpt))

    for kind, hints, rx, word_start in PATTERNS:
        if present.isdisjoint(hints):
            continue
        for m in rx.finditer(text):
            if word_start and m.start() and _in_word(text, m.start()):
                continue
            start, end = m.span("v") if "v" in rx.groupindex else m.span()
            if not _vendor_placeholder(kind, m):
                add(kind, start, end, _excerpt(text, m.start(), start, end))

    for hints, rx in PUBLIC:
        if not present.isdisjoint(hints):
            for m in rx.finditer(low):
                taken.take(*m.span())

    for i in _occurrences(low, _ASSIGNMENT_STEMS):
        m = _ASSIGNMENT.match(low, i)
        if m is None:
            continue
        key_start, limit = m.start(), max(0, m.start() - _NAME_MAX)
        while key_start > limit and (low[key_start - 1].isalnum() or low[key_start - 1] in "_.-"):
            key_start -= 1
        if key_start and low[key_start - 1] == "$":
            continue  # `$password = ...` in shell or PHP reads a variable
        key = text[key_start : _NAME_END.match(low, m.start()).end()]
        group = m.lastgroup or "bare"  # the value's group: xml, dq, sq or bare
        start, end = m.span(group)
        if (
            group == "bare"
            and low[max(0, start - 16) : start].rstrip(" \t\"'").endswith(":")
            and (tag := _YAML_TAG.match(text, start))
        ):
            if _YAML_TAG_BLOCK.match(text, start):
                continue  # `password: !vault |`: the value is on the lines below
            tagged = _YAML_TAGGED_VALUE.match(text, tag.end())
            if tagged is None:
                continue  # a tag and nothing after it on the line
            group = tagged.lastgroup or "bare"  # `password: !secret name`: the value is `name`
            start, end = tagged.span(group)
        if group == "bare":
            while end > start and text[end - 1] in ".:":
                end -= 1  # the end of a sentence: `Password: hunter2.`
        strength = _credential_name(key)
        value = text[start:end]
        if (
            strength
            and _is_secret_value(value, quoted=group != "bare")
            and (strength == "strong" or _random_looking(value, min_len=12))
        ):
            add(ASSIGNMENT, start, end, key + "=…")
        elif _password_name(key) and (span := _plain_password(text, key_start, start, end, group)):
            add(ASSIGNMENT, *span, key + "=…")

    for i in _occurrences(low, _WORD_STEMS):
        m = _WORD.match(low, i)
        if m is None:
            continue
        if m.start() and (low[m.start() - 1].isalnum() or low[m.start() - 1] == "_"):
            continue  # inside a word: `has_secure_password`, `ParseToken`
        eol = low.find("\n", m.end())
        line_end = len(text) if eol < 0 else eol
        pos, starts_end = m.end(), min(line_end, m.end() + _WINDOW + 6)
        while (first := _VALUE_START.search(text, pos, starts_end)) is not None:
            v = _WORD_VALUE.match(text, first.start(), min(line_end, first.start() + _VALUE_MAX))
            if v is None:  # six characters, but it ends in a full stop
                pos = first.start() + 1
                continue
            pos = v.end()
            value, gap = v.group(), text[m.end() : v.start()]
            if text.startswith("(", v.end()):
                continue  # a call: `password = read_password(...)`
            if _YAML_TAG_BLOCK.match(text, v.start()):
                continue  # `password: !vault |`: a tag, the value is below
            if gap.rstrip(" \t\"'").endswith(":") and _YAML_TAG.match(text, v.start()):
                continue  # `password: !secret name`: a tag, the value follows it
            if _near_word_secret(value, gap, password=m.group("pw") is not None):
                add(
                    _near_word_kind(low, m, v), v.start(), v.end(), text[m.start() : m.end()] + " …"
                )
                break

    for m in _TOKEN.finditer(text):
        token = m.group().strip("=")
        if (
            free(m.start(), m.start() + len(token))
            and _high_entropy(token)
            and not _decodes_to_text(m.group())
        ):
            add(HIGH_ENTROPY, m.start(), m.start() + len(token), f"{len(token)} characters")

    found.sort()
    out, line, pos = [], 1, 0
    for start, end, kind, excerpt in found:
        line += text.count("\n", pos, start)
        pos = start
        out.append(Finding(kind, line, excerpt, start, end))
    return out


class _Spans:
    """Non-overlapping spans taken so far, sorted, for overlap tests in log time."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def free(self, start: int, end: int) -> bool:
        i = bisect.bisect_right(self.starts, start)
        if i and self.ends[i - 1] > start:
            return False  # the span before reaches into this one
        return i == len(self.starts) or self.starts[i] >= end

    def take(self, start: int, end: int) -> bool:
        """Take the span unless it overlaps one taken; say whether it was taken."""
        if not self.free(start, end):
            return False
        i = bisect.bisect_right(self.starts, start)
        self.starts.insert(i, start)
        self.ends.insert(i, end)
        return True


def _occurrences(low: str, stems: tuple[str, ...]) -> list[int]:
    """Where the stems start, in order: `str.find` per stem outruns a regex alternation."""
    found = []
    for stem in stems:
        i = low.find(stem)
        while i >= 0:
            found.append(i)
            i = low.find(stem, i + 1)
    found.sort()
    return found


def _in_word(text: str, i: int) -> bool:
    """Whether `text[i]` continues a word (`\\b` does not hold before it)."""
    c = text[i - 1]
    return c.isalnum() or c == "_"


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


def _excerpt(text: str, match_start: int, start: int, end: int) -> str:
    """The name or prefix before the value (`Bearer …`, `postgres://app:…`), or the token's
    first four characters (its vendor prefix); a PEM block shows its BEGIN line."""
    if start > match_start:
        return text[match_start:start][-32:].lstrip() + "…"
    pem = _PEM_BEGIN.match(text, start)
    return pem.group() if pem else text[start : start + 4] + "…"


def _vendor_placeholder(kind: str, m: re.Match[str]) -> bool:
    """`ghp_xxxx…`, `AKIAXXXX…`, a URL's `user:password@`: documentation, not a secret."""
    if "v" in m.re.groupindex and (
        m.group("v").startswith("[REDACTED:") or _PLACEHOLDER.match(m.group("v"))
    ):
        return True  # what `redact` left, `mysql -p<password>`, `Bearer ${TOKEN}`
    if "u" in m.re.groupindex:  # `user:password`: a URL, `curl -u`
        user, password = m.group("u"), m.group("v")
        return password == user or bool(_PLACEHOLDER.match(password))
    if kind == "basic auth credentials":
        user, _, password = _decode_base64(m.group("v")).partition(":")
        return password == user or bool(_PLACEHOLDER.match(password))  # `user:pass`
    if kind == "bearer token":
        value = m.group("v")
        return len(value) < 20 or not _LETTER.search(value)
    tail = m.group()[-16:]
    return len(set(tail)) <= 3


def _credential_name(key: str) -> str | None:
    """`strong` for a name that says it holds a secret (`DB_PASS`, `clientSecret`, `api-key`,
    `PGPASSWORD`), `weak` for one that only says auth or key (`auth: oauth2` and
    `sort_key: created_at` are settings, `_auth=<base64>` and `OPENAI_KEY=<random>` secrets:
    the value must look random), None for any other name."""
    parts = [p.lower() for p in _NAME_PART.findall(key)]
    if not parts or parts[-1] in _NOT_A_VALUE:
        return None
    if any(p in _CREDENTIAL_PARTS or p.endswith(_GLUED) for p in parts) or any(
        a in _KEY_QUALIFIERS and b == "key" for a, b in zip(parts, parts[1:], strict=False)
    ):
        return "strong"
    return "weak" if "auth" in parts or parts[-1] == "key" else None


def _password_name(key: str) -> bool:
    """A name that says it holds a password or passphrase: `DB_PASSWORD`, `PGPASSWORD`,
    `storePassword`, `Pwd` (not `password_file`, `passwordHint`)."""
    parts = [p.lower() for p in _NAME_PART.findall(key)]
    return (
        bool(parts)
        and parts[-1] not in _NOT_A_VALUE
        and any(
            p in _PASSWORD_PARTS or p.endswith(("password", "passwd", "passphrase")) for p in parts
        )
    )


def _plain_password(
    text: str, key_start: int, start: int, end: int, group: str
) -> tuple[int, int] | None:
    """The span of a password made of letters only, or of a passphrase of a few words, given
    to a password-named setting where a literal is written: a line of its own (an env, INI,
    YAML or properties file, a compose list), a `;`/`&`-separated connection string or a
    libpq `key=value` list, or a quoted JSON/YAML string. `password = password_input` in
    code, `${VAR}`, `<password>`, `changeme`, `***` and labels (`Enter your password`) are not
    passwords."""
    before = text[max(text.rfind("\n", 0, key_start) + 1, key_start - 200) : key_start]
    if group == "bare":
        if not _SETTING_START.fullmatch(before):
            return None
        rest = _REST_OF_LINE.match(text, end)
        if rest is None:
            return None  # more code follows: `password = a + b`, `password=pw)`
        words = rest.group("words")  # more code follows: `password = a + b`, `password=pw)`
        if words and before.strip(" \t-") not in ("", "export"):
            words = ""  # a passphrase with spaces stands on a line of its own
        value = text[start:end] + (words or "")
        end += len(words or "")
    elif group in ("dq", "sq"):
        value = text[start:end]
    else:
        return None
    return (start, end) if _password_words(value) else None


def _password_words(value: str) -> bool:
    """Letters-only (one word of 5+ letters, or 2-8 words) and nothing that marks a name, a
    placeholder or a label."""
    words = value.split()
    if not words or len(words) > 8 or not all(_LETTERS_OR_HYPHEN.fullmatch(w) for w in words):
        return False
    low = value.lower()
    if len(words) == 1:
        w = words[0]
        if len(w) < 5 or w.isupper() or _INNER_CAPITAL.search(w) or low in _CODE_WORDS:
            return False  # a constant, a camelCase variable, a keyword
    elif len(value) < 12 or any(w.lower() in _LABEL_WORDS for w in words):
        return False  # a label or a sentence: `Enter your password`
    if _PLACEHOLDER.match(value) or _MADE_UP.search(value):
        return False
    return not any(w in low for w in _CREDENTIAL_WORDS_IN_VALUE)


def _is_secret_value(value: str, *, quoted: bool) -> bool:
    v = value.strip()
    if len(v) < 6 and not (len(v) >= 4 and _DIGIT.search(v) and _NOT_DIGIT.search(v)):
        return False
    if _PLACEHOLDER.match(v) or _MADE_UP.search(v) or len(set(v)) <= 3 or "[REDACTED:" in v:
        return False
    if _NUMBER.fullmatch(v):
        return False  # a number, an expression, a date: `10**9`, `2026-01-05`
    if quoted:
        return not _PROSE.fullmatch(v)  # words: prose
    # Bare values in code and prose: `password=get_password()`, `token: self.token`,
    # `secret = os.environ[...]`, `api_key=API_KEY`, `PWD=/home/me`: references, not values.
    if v.startswith(("%", "{", "<", "(", "[", "@", "/", "./", "../", "~/", "http://", "https://")):
        return False
    if "(" in v or "[" in v or _ATTRIBUTE.match(v):
        return False
    if _PATH.fullmatch(v):
        return False  # a path: `secret/data/app`
    if _LETTERS.fullmatch(v):
        return _random_looking(v, min_len=8)  # a name, unless random letters: `TZVLutwW`
    if _NAME_CHARS.fullmatch(v) or _SNAKE_NAME.fullmatch(v):
        return _random_looking(v)  # an identifier, unless it is random
    return not _words(v)


def _words(v: str) -> bool:
    """`15-minute`, `AGE-SECRET-KEY-1`, `v2_final`: words and numbers joined, a name."""
    parts = [p for p in _SEPARATOR.split(v) if p]
    return len(parts) > 1 and all(p.isalpha() or p.isdigit() for p in parts)


def _near_word_secret(value: str, gap: str, *, password: bool) -> bool:
    """A value right after a credential word: `password hunter2!`, `the API key is <token>`."""
    told = password and _CONNECTOR.fullmatch(gap) is not None  # `password is hunter2!`
    if told:
        if _LETTER.search(value) is None or _NOT_LETTER.search(value) is None:
            return False
    elif len(value) < 16:
        return False
    if not _is_secret_value(value, quoted=False):
        return False  # a placeholder, a reference (`AuthBase.__call__`), a path, a number
    if told:
        return True
    if _HEX.fullmatch(value):
        # a hex digest after "token" is a commit, unless it is told: `token: <hex>`
        return len(value) >= 32 and _CONNECTOR.fullmatch(gap) is not None
    return _random_looking(value)


def _near_word_kind(low: str, word: re.Match[str], value: re.Match[str]) -> str:
    """An AWS secret key is 40 base64 characters after an AWS key id or near "AWS"."""
    if _AWS_SECRET.fullmatch(value.group()) and (
        word.group()[:4] in ("akia", "asia")
        or "aws" in low[max(0, word.start() - 60) : value.start()]
    ):
        return "AWS secret access key"
    return NEAR_WORD


def _random_looking(token: str, min_len: int = 16) -> bool:
    """Mixed classes that switch often, as random strings do; names and paths switch rarely."""
    t = token.strip("=")
    mixed_case = _LOWER.search(t) and _UPPER.search(t)
    if len(t) < min_len or not (mixed_case or _DIGIT.search(t)):
        return False
    if t.count("/") >= 2 and all(_PATH_PART.fullmatch(p) for p in t.split("/")):
        return False  # a path
    if _words(t) or _CAMEL_CASE.fullmatch(t):
        return False
    words = sum(len(w) for w in _WORD_RUN.findall(t))
    if words * 2 > len(t):
        return False
    classes = [
        "d" if c.isdigit() else "u" if c.isupper() else "l" if c.islower() else "s" for c in t
    ]
    switches = sum(a != b for a, b in zip(classes, classes[1:], strict=False)) / (len(t) - 1)
    if switches < 0.3 or _entropy(t) < min(4.0, math.log2(len(t)) - 1.0):
        return False
    return not _sequential(t)


def _high_entropy(token: str) -> bool:
    if len(token) < 32:
        return False
    if not (_LOWER.search(token) and _UPPER.search(token)):
        return False  # hex digests, UUIDs, lower-case slugs
    if len(_DIGIT.findall(token)) < 2:
        return False  # CamelCaseIdentifiers and prose glued together
    if token.count("/") >= 2 and all(len(p) <= 24 for p in token.split("/")):
        return False  # a path
    if token.count("_") + token.count("-") >= 3 and all(
        len(p) <= 16 for p in _SNAKE_SEPARATOR.split(token)
    ):
        return False  # snake_case / kebab-case names
    words = sum(len(w) for w in _WORD_RUN.findall(token))
    if words * 2 > len(token):
        return False  # mostly dictionary-like runs: CamelCase names, glued prose
    # About the 2nd percentile of random base62/base64 strings of that length.
    if _entropy(token) < min(4.9, math.log2(len(token)) - 0.85):
        return False
    return not _sequential(token)


def _sequential(t: str) -> bool:
    """`abcdef…XYZ0123456789`: an alphabet or a counting run, not a random draw."""
    steps = sum(ord(b) - ord(a) == 1 for a, b in zip(t, t[1:], strict=False))
    return steps * 3 > len(t)


def _decodes_to_text(token: str) -> bool:
    """Base64 of text (a JSON fixture, `hello world`) is data, whatever its entropy."""
    decoded = _decode_base64(token)
    return bool(decoded) and sum(c.isprintable() or c in "\n\t" for c in decoded) >= 0.95 * len(
        decoded
    )


def _decode_base64(token: str) -> str:
    """The UTF-8 text `token` encodes (standard or URL-safe base64), or ``."""
    raw = token.strip("=").replace("-", "+").replace("_", "/")
    try:
        return base64.b64decode(raw + "=" * (-len(raw) % 4), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):  # (UnicodeDecodeError is a ValueError)
        return ""


def _entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())
