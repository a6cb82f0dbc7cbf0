"""The secret detector: provider tokens found, ordinary prose, hashes and ids left alone.

The corpus in tests/data/secrets/ is the spec: every secret shape in it is caught with the
kind it names, and no ordinary text in it is refused (benchmarks/secrets.py prints the same
counts, and the time per KB).
"""

from __future__ import annotations

import string

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from secrets_corpus import load

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
    ("postgres://admin:sup3rs3cret@db.example.com/app", "password in a URL"),
    ("token value q7Vx2LmN9pR4sT8wY1zB3cD6fG0hJ5kK", "secret next to a credential word"),
    ("build q7Vx2LmN9pR4sT8wY1zB3cD6fG0hJ5kK", "high-entropy token"),
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


SHAPES = load("secrets.txt")
ORDINARY = load("ordinary.txt")


@pytest.mark.parametrize("text, kind", DETECTED)
def test_provider_secrets_are_found(text: str, kind: str):
    found = secrets.find("first line\n" + text)
    assert found, text
    assert found[0].kind == kind
    assert found[0].line == 2
    value = text[found[0].start - len("first line\n") :][: found[0].end - found[0].start]
    assert value[4:12] not in found[0].excerpt or found[0].excerpt.startswith("-----BEGIN")


def test_the_corpus_is_large_enough():
    assert len(SHAPES) >= 50 and len(ORDINARY) >= 50
    assert len({e.title for e in SHAPES + ORDINARY}) == len(SHAPES) + len(ORDINARY)


@pytest.mark.parametrize("entry", SHAPES, ids=[e.title for e in SHAPES])
def test_every_corpus_secret_is_caught_with_its_kind(entry):
    assert entry.kind in [f.kind for f in secrets.find(entry.text)], entry.text


@pytest.mark.parametrize("entry", ORDINARY, ids=[e.title for e in ORDINARY])
def test_no_ordinary_corpus_text_is_refused(entry):
    found = secrets.find(entry.text)
    assert found == [], [(f.kind, entry.text[f.start : f.end]) for f in found]


@pytest.mark.parametrize("entry", SHAPES, ids=[e.title for e in SHAPES])
def test_a_finding_locates_the_secret_without_quoting_it(entry):
    for f in secrets.find(entry.text):
        value = entry.text[f.start : f.end]
        assert f.line == entry.text.count("\n", 0, f.start) + 1
        assert f.excerpt
        if not f.excerpt.startswith("-----BEGIN"):
            # at most a vendor prefix of the value shows: never its random part
            assert len(value) <= 4 or value[4:12] not in f.excerpt, (f.excerpt, value)
        assert secrets.find(secrets.redact(entry.text)) == []


@pytest.mark.parametrize(
    "text, kind, secret",
    [
        ("DB_PASS=Tr0ub4dor&3", "password or secret assignment", "Tr0ub4dor&3"),
        ("DATABASE_URL=postgres://app:pw12@db/x", "password in a URL", "pw12"),
        ('{"clientSecret": "Zk9-abc_123x"}', "password or secret assignment", "Zk9-abc_123x"),
        ("password hunter2!", "secret next to a credential word", "hunter2!"),
    ],
)
def test_the_span_is_the_value_alone(text: str, kind: str, secret: str):
    (f,) = secrets.find(text)
    assert (f.kind, text[f.start : f.end]) == (kind, secret)
    assert secret not in f.excerpt


def test_describe_names_the_kind_and_the_name_not_the_value():
    assert secrets.describe("ok", "DB_PASS=Tr0ub4dor&3") == (
        "a password or secret assignment (DB_PASS=…) in desc"
    )
    assert secrets.describe("one\nxapp-1-A0B1C2D3E4-1234567890123-" + "ab12" * 16) == (
        "a Slack token (xapp…) in content line 2"
    )


@pytest.mark.parametrize(
    "text",
    [
        "sha512-" + "Q" * 20 + "aB3dE5fG7hJ9kL2mN4pQ" * 3 + "==",  # SRI hash
        "github.com/x/y v1.0.0 h1:aB3dE5fG7hJ9kL2mN4pQrS7tU9vW1xY3zA5bC7dE9fG=",  # go.sum
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIaB3dE5fG7hJ9kL2mN4pQrS7tU9vW1xY3zA5bC7dE9fG me@host",
        "-----BEGIN CERTIFICATE-----\nMIIB"
        + "aB3dE5fG7hJ9kL2mN4pQ" * 3
        + "\n-----END CERTIFICATE-----",
        "API_KEY=<your-api-key>\nTOKEN=xxxx\nSECRET=${SECRET}\nDB_PASSWORD=changeme",
        "export GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    ],
)
def test_public_material_and_placeholders_are_not_secrets(text: str):
    assert secrets.find(text) == []


def test_a_hash_prefix_inside_a_token_does_not_make_it_public():
    token = "Xq7LmN2pR9sT4vW8yZ1b" + "md5-" + "C3dF6gH0jK5kM8nP2qR7sT"
    assert [secrets.find(f"value {token}")[0].kind] == ["high-entropy token"]


def test_a_vendor_token_is_found_even_inside_public_material():
    """Public spans only quiet the heuristics: a real token pasted next to a hash still counts."""
    text = "integrity sha512-abc ghp_" + "aB3dE5fG7hJ9kL2mN4pQ" * 2
    assert [f.kind for f in secrets.find(text)] == ["GitHub token"]


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


RANDOM_TOKEN = st.text(alphabet=string.ascii_letters + string.digits, min_size=12, max_size=64)


@settings(max_examples=300, deadline=None)
@given(
    RANDOM_TOKEN,
    st.sampled_from(
        [
            "password={}",
            "DB_PASS={}",
            'api_key = "{}"',
            '"clientSecret": "{}"',
            "  auth_token: {}",
            "the password is {}",
        ]
    ),
)
def test_a_random_token_next_to_a_credential_word_is_caught(token: str, template: str):
    assume(any(c.isdigit() for c in token) and any(c.isalpha() for c in token))
    assume(len(set(token)) > 6)
    text = template.format(token)
    spans = [text[f.start : f.end] for f in secrets.find(text)]
    assert token in spans, (text, spans)


SENTENCE_WORDS = (
    "the a an of to and in is it that for on with as was be this by we you not or are from at "
    "password passwords token tokens secret secrets key keys auth credential api access private "
    "rotate store never commit build release deploy cache server user login reset expired valid "
    "file config test run fixed bug docs team review 12 90 2026 v2 ok"
)
WORDS = SENTENCE_WORDS.split()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(WORDS), st.sampled_from(["", "", "", ",", ".", ":"])),
        min_size=1,
        max_size=40,
    )
)
def test_random_english_sentences_are_not_refused(words: list[tuple[str, str]]):
    text = " ".join(w + p for w, p in words).capitalize()
    assert secrets.find(text) == []


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


@pytest.mark.parametrize(
    "text, secret",
    [
        ("DB_PASSWORD=hunterlime", "hunterlime"),
        ("      - MYSQL_ROOT_PASSWORD=bluewhale", "bluewhale"),
        ("  POSTGRES_PASSWORD: walrusgate", "walrusgate"),
        ("Server=db;User Id=sa;Password=Marmalade;", "Marmalade"),
        ("host=db user=app password=quietriver sslmode=require", "quietriver"),
        ("GPG_PASSPHRASE=velvet thunder maple", "velvet thunder maple"),
        ('{"passphrase": "purple monkey dishwasher lantern"}', "purple monkey dishwasher lantern"),
    ],
)
def test_a_letters_only_password_in_a_setting_is_caught(text: str, secret: str):
    found = secrets.find(text)
    assert [text[f.start : f.end] for f in found] == [secret]
    assert found[0].kind == secrets.ASSIGNMENT and secret not in found[0].excerpt


@pytest.mark.parametrize(
    "text",
    [
        "DB_PASSWORD=${DB_PASSWORD}",
        "DB_PASSWORD=$DB_PASSWORD",
        "SMTP_PASSWORD=<password>",
        "ADMIN_PASSWORD=changeme",
        "ADMIN_PASSWORD=***",
        "PASSWORD=DB_PASS",
        "conn = connect(user=user, password=password)",
        "login(user, password=userPassword)",
        "password = getpass",
        "password: str",
        '{"password": "Password", "passphraseLabel": "Enter your passphrase"}',
        "password: Enter your password here",
        "POSTGRES_PASSWORD_FILE=/run/secrets/db",
    ],
)
def test_password_references_and_placeholders_stay_allowed(text: str):
    assert secrets.find(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "password: !vault |",
        "db_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  6231336539666234306139346433",
        '"password": !vault >-  # encrypted with the prod vault id',
    ],
)
def test_an_ansible_vault_reference_is_not_a_password(text: str):
    # The tag says the value is the ciphertext on the lines below: safe to keep.
    assert secrets.find(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password: !unsafe S3cr3tXyz9!q", "S3cr3tXyz9!q"),  # a tag before a literal: the literal
        ("DB_PASSWORD=!hunter2Xy9q", "!hunter2Xy9q"),  # not YAML: `!` starts the password
        ("password: !vault | hunter2isMyPw99", "hunter2isMyPw99"),  # a value after the indicator
        ("password: !!str hunter2isMyPw", "hunter2isMyPw"),  # YAML's own string tag
        ('password: !!str "correct horse battery"', "correct horse battery"),
    ],
)
def test_a_password_after_a_bang_is_caught_and_redacted(text: str, secret: str):
    # The finding is the password itself, so redaction hides it (it once hid the tag and
    # left `S3cr3tXyz9!q` in the text).
    assert [text[f.start : f.end] for f in secrets.find(text)] == [secret]
    assert secret not in secrets.redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "password: !secret wifi_password",  # Home Assistant: a name in secrets.yaml
        "wifi:\n  ssid: home\n  password: !secret wifi_pw\n",
        "db_password: !env_var DB_PASSWORD",  # ESPHome: an environment variable
        "password: !ENV ${DB_PASS}",  # pyaml-env
    ],
)
def test_a_yaml_tag_naming_where_the_password_is_kept_is_not_a_password(text: str):
    assert secrets.find(text) == []
