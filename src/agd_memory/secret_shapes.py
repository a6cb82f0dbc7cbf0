"""What known secrets and public material look like: the tables `agd_memory.secrets` scans
with. A new vendor format is one more row of `PATTERNS`.
"""

from __future__ import annotations

import re

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
            "password on a command line",  # `mysql -p<password>` (a bare `-p` prompts), `sshpass -p <password>`
            ("mysql", "sshpass"),
            r"\b(?:mysql(?:dump|admin)?\b[^\n]{0,200}?\s-p|sshpass\s+-p\s*)[\"']?(?P<v>[^\s\"'`\-][^\s\"'`]{3,})",
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

# Public material: masked from the heuristics (rules 2-4 of `agd_memory.secrets`), never
# from the vendor table.
# Matched on the lower-cased text, like the credential words below.
PUBLIC: tuple[tuple[frozenset[str], re.Pattern[str]], ...] = tuple(
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
            r"(?<![a-z0-9+/_\-])(?:sha(?:1|224|256|384|512)|md5|h1)[:\-][a-z0-9+/_\-]{16,}={0,2}",
        ),
        (
            ("data:",),
            r"(?<![a-z0-9])data:[\w.+\-]+/[\w.+\-]+(?:;[\w.=\-]+)*;base64,[a-z0-9+/]+={0,2}",
        ),
        (("pk_",), r"(?<![a-z0-9_])pk_(?:live|test)_[a-z0-9]+"),
        (  # base64 of a PNG, JPEG, GIF, PDF, gzip or zip file: data, not a credential
            ("ivborw0kggo", "/9j/", "r0lgod", "jvberi0", "h4si", "uesdb"),
            r"(?<![a-z0-9+/])(?:ivborw0kggo|/9j/|r0lgod|jvberi0|h4si|uesdb)[a-z0-9+/]{16,}={0,2}",
        ),
    )
)

_ALL = {h for _, hints, _, _ in PATTERNS for h in hints} | {h for hints, _ in PUBLIC for h in hints}
FOLDED_HINTS = tuple(sorted(h for h in _ALL if h.islower()))  # looked for in lower case
EXACT_HINTS = tuple(sorted(h for h in _ALL if not h.islower()))  # looked for as written
