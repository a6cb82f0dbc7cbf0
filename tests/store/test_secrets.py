"""The secret detector: provider tokens found, ordinary prose, hashes and ids left alone."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agd_memory import secrets

R = "aB3dE5fG7hJ9kL2mN4pQ"  # 20 mixed characters, repeated to build fake tokens

DETECTED = [
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaA\n-----END OPENSSH PRIVATE KEY-----",
        "private key",
    ),
    ("-----BEGIN PRIVATE KEY-----\nMIIEv", "private key"),
    ("id AKIAIOSFODNN7EXAMPLE", "AWS access key id"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AWS secret access key"),
    ("key=AIzaSyA-" + "1234567890abcdefghijklmnopqrstu", "Google API key"),
    ("ya29.a0AfH6SMBx" + R, "Google OAuth token"),
    ("AccountKey=" + R * 4 + "==", "Azure storage key"),
    ("https://x.blob.core.windows.net/c?sv=2022&sig=" + R * 2, "Azure SAS signature"),
    ("ghp_" + R * 2, "GitHub token"),
    ("github_pat_11ABCDEFG0" + R * 2, "GitHub token"),
    ("glpat-" + R, "GitLab token"),
    ("xoxb-2400000000-" + R, "Slack token"),
    ("https://hooks.slack.com/services/T0000/B0000/" + R, "Slack webhook"),
    ("sk_live_" + R, "Stripe key"),
    ("sk-ant-api03-" + R * 2, "Anthropic API key"),
    ("sk-proj-" + R * 2, "OpenAI API key"),
    ("npm_" + R + "0123456789abcdef", "npm token"),
    ("pypi-AgEIcHlwaS5vcmc" + R * 3, "PyPI token"),
    (
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "JSON web token",
    ),
    ("Authorization: Bearer " + R + "xyz", "bearer token"),
    ('password = "hunter2!"', "password or secret assignment"),
    ("DB_PASSWORD=s3cr3t-Pa55", "password or secret assignment"),
    ("client_secret: 'Zk9-abc_123'", "password or secret assignment"),
    ("postgres://admin:sup3rs3cret@db.example.com/app", "credentials in a URL"),
    ("token value q7Vx2LmN9pR4sT8wY1zB3cD6fG0hJ5kK", "high-entropy token"),
]

BENIGN = [
    "commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 fixed the bug",
    "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "request id 123e4567-e89b-12d3-a456-426614174000",
    "The password must be at least 12 characters long.",
    "password = get_password()",
    "token: self.token",
    "api_key=API_KEY",
    "secret = os.environ['SECRET']",
    "password: <your password>",
    "token=${GITHUB_TOKEN}",
    "Send a Bearer token in the Authorization header.",
    "src/agd_memory/commands/store.py and /usr/lib/python3.11/site-packages/Foo2/bar3",
    "AbstractSingletonProxyFactoryBean2Impl3Handler",
    "test_store_save_rejects_secret_in_desc_with_line_number2",
    'see #project-milestone-001 and refs="#a,#b"',
    "the sk-learn docs; sk-ant- keys start like that",
    "Scadenza fissata al 2026-03-14, versione 1.9.0",
]


@pytest.mark.parametrize("text, kind", DETECTED)
def test_provider_secrets_are_found(text: str, kind: str):
    found = secrets.find("first line\n" + text)
    assert found, text
    assert found[0].kind == kind
    assert found[0].line == 2
    assert found[0].excerpt.endswith("…") or found[0].excerpt.startswith("-----BEGIN")


@pytest.mark.parametrize("text", BENIGN)
def test_ordinary_text_is_not_flagged(text: str):
    assert secrets.find(text) == []


def test_redact_replaces_only_the_secret():
    text = f"use ghp_{R * 2} here\npassword='abcd1234'\nplain"
    out = secrets.redact(text)
    assert (
        out
        == "use [REDACTED:GitHub token] here\npassword='[REDACTED:password or secret assignment]'\nplain"
    )
    assert secrets.find(out) == []


def test_private_key_block_is_redacted_whole():
    key = "-----BEGIN RSA PRIVATE KEY-----\nMIIabc\ndef\n-----END RSA PRIVATE KEY-----"
    assert secrets.redact(f"before\n{key}\nafter") == "before\n[REDACTED:private key]\nafter"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="0123456789abcdef", min_size=7, max_size=64))
def test_hex_digests_are_never_flagged(h: str):
    assert secrets.find(f"commit {h} in prose") == []


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=string.ascii_letters + string.digits + " .,;:!?'\n-#@", max_size=300))
def test_redact_is_idempotent_and_leaves_nothing_behind(text: str):
    once = secrets.redact(text)
    assert secrets.redact(once) == once
    assert secrets.find(once) == []
