"""Secret-shaped strings: found before they are written to memory, or redacted.

Memory files are plain text that is injected into model context and often synced
or shared, so a save that holds a credential is refused (the caller can override)
and unattended writers (the distiller) redact instead.

`find` runs four rules over the text, the most specific first; where two overlap the
first wins, so a finding's kind is the most precise one known:

1. Vendor tokens: a table of known prefixes and shapes (GitHub `ghp_`, Slack `xapp-`,
   AWS `AKIA`, Stripe `sk_live_`, PEM private keys, database URLs with a password, ...).
2. Assignments: `NAME=value`, `NAME: value`, `"name": "value"` where a word part of
   NAME is a credential word (`DB_PASS`, `clientSecret`, `X-API-Key`) and the value is a
   literal, not a reference (`os.environ[...]`, `${TOKEN}`, `settings.KEY`).
3. Prose: a random-looking value right after a credential word ("the API key is ...",
   `password hunter2` in a netrc).
4. Any long token with close to random entropy, mixed case and digits.

Public material is not a secret: the bodies of certificates and public-key PEM blocks,
SSH public keys, integrity hashes (`sha512-...`, go.sum `h1:...`), `data:` URIs and
Stripe publishable keys are masked from rules 2-4, and base64 that decodes to text is
data. Placeholders (`<your-token>`, `xxxx`, `${TOKEN}`, `changeme`, `ghp_xxxx...`) are
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

_NB = r"(?![A-Za-z0-9_\-])"  # the token ends here


# (kind, hints, pattern), most specific first. A pattern runs only on a text that holds one
# of its hints (a hint in lower case is looked for in the lower-cased text): a substring
# search costs far less than a regex scan. A leading `\b` is checked by hand (it would
# keep the regex engine from searching for the literal prefix). The
# whole match, or group `v` when present, is the secret; the text before `v` (or the first
# four characters) is the excerpt.
PATTERNS: tuple[tuple[str, frozenset[str], re.Pattern[str], bool], ...] = tuple(
    (kind, frozenset(hints), re.compile(rx.removeprefix(r"\b")), rx.startswith(r"\b"))
    for kind, hints, rx in (
        (
            "private key",
            ("PRIVATE KEY",),
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*)",
        ),
        ("age secret key", ("AGE-SECRET-KEY-1",), r"\bAGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}\b"),
        (
            "AWS access key id",
            ("AKIA", "ASIA", "ABIA", "ACCA"),
            r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b",
        ),
        (
            "AWS secret access key",
            ("secret",),
            r"(?i)aws_?secret_?(?:access_?)?key[\"']?\s*[:=]\s*[\"']?(?P<v>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        ),
        ("Google API key", ("AIza",), r"\bAIza[0-9A-Za-z_\-]{35}" + _NB),
        ("Google OAuth token", ("ya29.",), r"\bya29\.[0-9A-Za-z_\-]{20,}"),
        ("Google OAuth client secret", ("GOCSPX-",), r"\bGOCSPX-[0-9A-Za-z_\-]{28}" + _NB),
        ("Azure storage key", ("accountkey=",), r"(?i)AccountKey=(?P<v>[A-Za-z0-9+/]{40,}={0,2})"),
        ("Azure SAS signature", ("sig=",), r"(?i)[?&]sig=(?P<v>[A-Za-z0-9%+/]{30,}={0,2})"),
        (
            "Azure client secret",
            ("q~",),
            r"(?<![A-Za-z0-9_~.\-])[A-Za-z0-9_~.\-]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}(?![A-Za-z0-9_~.\-])",
        ),
        (
            "GitHub token",
            ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
            r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})",
        ),
        (
            "GitLab token",
            (
                "glpat-",
                "gldt-",
                "glrt-",
                "glptt-",
                "glft-",
                "glcbt-",
                "gloas-",
                "glimt-",
                "glagent-",
            ),
            r"\bgl(?:pat|dt|rt|ptt|ft|cbt|oas|imt|agent)-[A-Za-z0-9_\-]{20,}",
        ),
        (
            "Grafana token",
            ("glsa_", "glc_"),
            r"\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b|glc_[A-Za-z0-9+/]{32,}={0,2})",
        ),
        (
            "Slack token",
            ("xox", "xapp-"),
            r"\b(?:xox[abposer]|xoxe\.xox[bp]|xapp)-[A-Za-z0-9-]{10,}",
        ),
        (
            "Slack webhook",
            ("hooks.slack.com",),
            r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/]{20,}",
        ),
        (
            "Discord webhook",
            ("/api/webhooks/",),
            r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]{40,}",
        ),
        (
            "Stripe key",
            ("sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"),
            r"\b(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})",
        ),
        ("Anthropic API key", ("sk-ant-",), r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
        (
            "OpenAI API key",
            ("sk-",),
            r"\bsk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|(?!ant-)[A-Za-z0-9]{40,}\b)",
        ),
        ("npm token", ("npm_",), r"\bnpm_[A-Za-z0-9]{36}\b"),
        ("PyPI token", ("pypi-age",), r"\bpypi-AgE[A-Za-z0-9_\-]{50,}"),
        ("SendGrid API key", ("SG.",), r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}" + _NB),
        ("Twilio API key", ("SK",), r"\bSK[0-9a-fA-F]{32}\b"),
        ("Mailgun API key", ("key-",), r"\bkey-[0-9a-f]{32}\b"),
        ("DigitalOcean token", ("_v1_",), r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
        (
            "Shopify token",
            ("shpat_", "shpca_", "shppa_", "shpss_"),
            r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b",
        ),
        (
            "Hugging Face token",
            ("hf_",),
            r"\bhf_(?=[A-Za-z]*[A-Z])(?=[A-Za-z]*[a-z])[A-Za-z]{34}\b",
        ),
        ("Databricks token", ("dapi",), r"\bdapi[a-f0-9]{32}(?:-\d)?\b"),
        ("Vault token", ("hvs.", "hvb.", "hvr."), r"\bhv[sbr]\.[A-Za-z0-9_\-]{24,}"),
        ("Postman API key", ("PMAK-",), r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"),
        ("Supabase token", ("sbp_",), r"\bsbp_[a-f0-9]{40}\b"),
        ("Linear API key", ("lin_api_",), r"\blin_api_[A-Za-z0-9]{40}\b"),
        ("Groq API key", ("gsk_",), r"\bgsk_[A-Za-z0-9]{52}\b"),
        ("Replicate API token", ("r8_",), r"\br8_[A-Za-z0-9]{37}\b"),
        ("Doppler token", ("dp.",), r"\bdp\.(?:st|ct|sa|scim|audit)\.[A-Za-z0-9_\-]{40,}"),
        ("Figma token", ("figd_",), r"\bfigd_[A-Za-z0-9_\-]{40}" + _NB),
        ("Heroku API key", ("HRKU-",), r"\bHRKU-[A-Za-z0-9_\-]{60}" + _NB),
        ("Sentry token", ("sntry",), r"\bsntry[su]_[A-Za-z0-9+/=_\-]{40,}"),
        ("Square token", ("sq0",), r"\bsq0(?:atp|csp)-[A-Za-z0-9_\-]{22,}"),
        ("Telegram bot token", (":AA",), r"\b\d{8,10}:AA[A-Za-z0-9_\-]{33}" + _NB),
        ("Atlassian API token", ("ATATT3",), r"\bATATT3[A-Za-z0-9_\-=]{150,}"),
        ("New Relic key", ("NRAK-",), r"\bNRAK-[A-Z0-9]{27}\b"),
        ("Mailchimp API key", ("-us",), r"\b[0-9a-f]{32}-us\d{1,2}\b"),
        ("Alibaba Cloud access key id", ("LTAI",), r"\bLTAI[A-Za-z0-9]{20}\b"),
        ("Facebook access token", ("EAA",), r"\bEAA[A-Za-z0-9]{90,}"),
        ("Dropbox token", ("sl.",), r"\bsl\.[A-Za-z0-9_\-]{130,}"),
        ("Netlify token", ("nfp_",), r"\bnfp_[A-Za-z0-9]{36}\b"),
        ("Fly.io token", ("fo1_",), r"\bfo1_[A-Za-z0-9_\-]{43}" + _NB),
        ("Pulumi token", ("pul-",), r"\bpul-[a-f0-9]{40}\b"),
        (
            "Terraform Cloud token",
            (".atlasv1.",),
            r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-]{60,}",
        ),
        (
            "private key",  # base64 of a PEM private key: kubeconfig `client-key-data`
            ("LS0tLS1CRUdJTi",),
            r"\bLS0tLS1CRUdJTi[A-Za-z0-9+/]*?(?:UFJJVkFURSBLRV|BSSVZBVEUgS0V|QUklWQVRFIEtFW)[A-Za-z0-9+/]*={0,2}",
        ),
        ("private key", ("Private-Lines:",), r"Private-Lines: \d+\r?\n[A-Za-z0-9+/=\r\n]{16,}"),
        (
            "password on a command line",  # `mysql -pSECRET` (a bare `-p` prompts), `sshpass -p SECRET`
            ("mysql", "sshpass"),
            r"\b(?:mysql(?:dump|admin)?\b[^\n]{0,200}?\s-p|sshpass\s+-p\s*)[\"']?(?P<v>[^\s\"'\-][^\s\"']{3,})",
        ),
        (
            "password on a command line",
            ("-u ", "--user"),
            r"(?<!\S)(?:-u|--user)\s+[\"']?(?P<u>[^\s:\"']+):(?P<v>[^\s\"']{4,})",
        ),
        (
            "JSON web token",
            ("eyj",),
            r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        ),
        (
            "basic auth credentials",
            ("basic",),
            r"(?i)\bauthorization[\"']?\s*[:=]\s*[\"']?basic\s+(?P<v>[A-Za-z0-9+/]{8,}={0,2})",
        ),
        (
            "bearer token",  # GitHub's `Authorization: token ...`
            ("authorization",),
            r"(?i)\bauthorization[\"']?\s*[:=]\s*[\"']?token\s+(?P<v>[A-Za-z0-9\-._~+/]{20,}={0,2})",
        ),
        (
            "bearer token",
            ("bearer",),
            r"(?i)\bbearer\s+(?P<v>[A-Za-z0-9\-._~+/]*[0-9][A-Za-z0-9\-._~+/]*={0,2})",
        ),
        (
            "password in a URL",
            ("://",),
            r"\b[a-z][a-z0-9+.\-]{0,31}://(?P<u>[^\s:/@]{0,256}):(?P<v>[^\s@/]{1,256})@[A-Za-z0-9.\-]+",
        ),
    )
)

# Public material: masked from the heuristics (rules 2-4), never from the vendor table.
# Matched on the lower-cased text, like the credential words below.
_PUBLIC: tuple[tuple[frozenset[str], re.Pattern[str]], ...] = tuple(
    (frozenset(hints), re.compile(rx))
    for hints, rx in (
        (
            ("-----begin",),
            r"-----begin (?![a-z0-9 ]*private)(?P<label>[a-z0-9 ]+)-----[\s\S]*?(?:-----end (?P=label)-----|\Z)",
        ),
        (
            ("ssh-", "ecdsa-"),
            r"(?:ssh-(?:rsa|dss|ed25519|ed448)|ecdsa-sha2-nistp\d+|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)(?:-cert-v01@openssh\.com)?\s+aaaa[a-z0-9+/]+={0,3}",
        ),
        (
            ("sha1", "sha2", "sha3", "sha5", "md5", "h1:", "h1-"),
            r"(?:sha(?:1|224|256|384|512)|md5|h1)[:\-][a-z0-9+/_\-]{16,}={0,2}",
        ),
        (("data:",), r"data:[\w.+\-]+/[\w.+\-]+(?:;[\w.=\-]+)*;base64,[a-z0-9+/]+={0,2}"),
        (("pk_",), r"pk_(?:live|test)_[a-z0-9]+"),
        (  # base64 of a PNG, JPEG, GIF, PDF, gzip or zip file: data, not a credential
            ("ivborw0kggo", "/9j/", "r0lgod", "jvberi0", "h4si", "uesdb"),
            r"(?:ivborw0kggo|/9j/|r0lgod|jvberi0|h4si|uesdb)[a-z0-9+/]{16,}={0,2}",
        ),
    )
)

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
_ALL_HINTS = {h for _, hints, _, _ in PATTERNS for h in hints} | {
    h for hints, _ in _PUBLIC for h in hints
}
_FOLDED_HINTS = tuple(sorted(h for h in _ALL_HINTS if h.islower()))  # looked for in lower case
_EXACT_HINTS = tuple(sorted(h for h in _ALL_HINTS if not h.islower()))  # looked for as written

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
    present = {h for h in _FOLDED_HINTS if h in low} | {h for h in _EXACT_HINTS if h in text}
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

    for hints, rx in _PUBLIC:
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
    if "v" in m.re.groupindex and m.group("v").startswith("[REDACTED:"):
        return True  # what `redact` left
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
