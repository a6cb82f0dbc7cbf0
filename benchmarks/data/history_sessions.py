"""Hand-written development sessions (Claude Code JSONL is generated from them) and
questions over them, for benchmarks/history_quality.py. Written for this repository;
the questions ask in other words than the exchanges, as a user would weeks later.
Each question names (session, exchange position) of the exchange that answers it."""

SESSIONS = {
    "sess-migrate": (
        "2026-03-02",
        [
            (
                "run the alembic migrations on staging",
                'Running `alembic upgrade head`. It failed: psycopg2.errors.DuplicateColumn: column "owner_id" of relation "invoices" already exists.',
                ["Bash command=alembic upgrade head"],
            ),
            (
                "why is owner_id already there?",
                "Migration 0042 adds owner_id but a hotfix on staging added it by hand on Feb 27. I made 0042 check for the column first with inspector.get_columns.",
                ["Edit file_path=migrations/versions/0042_owner.py"],
            ),
            (
                "ok rerun it",
                "Upgrade ran: 0042 -> 0043 -> 0044 applied, 3 migrations, 41 s on staging.",
                ["Bash command=alembic upgrade head"],
            ),
            (
                "how many rows did the backfill touch",
                "The backfill in 0044 updated 1,284,551 invoice rows in 12 batches of 110,000.",
                [],
            ),
        ],
    ),
    "sess-wal": (
        "2026-03-09",
        [
            (
                "the tests lock up with database is locked errors",
                "sqlite3.OperationalError: database is locked comes from the writer thread and the reader sharing one connection in rollback-journal mode.",
                ["Bash command=pytest -q tests/test_store.py"],
            ),
            (
                "switch sqlite to write-ahead logging then",
                "Done: PRAGMA journal_mode=WAL at connect, plus synchronous=NORMAL. The lock errors are gone: 212 passed.",
                ["Edit file_path=app/db.py", "Bash command=pytest -q"],
            ),
            (
                "does WAL work on the NFS share we use in CI?",
                "No: WAL needs shared memory, which NFS does not give. CI now uses a tmpfs path via DB_PATH=/dev/shm/ci.db.",
                ["Edit file_path=.github/workflows/ci.yml"],
            ),
        ],
    ),
    "sess-refactor": (
        "2026-04-14",
        [
            (
                "before we start the refactor, how many tests do we have?",
                "The suite has 1,873 tests (1,790 unit, 83 integration); coverage 81.4 %.",
                ["Bash command=pytest --collect-only -q"],
            ),
            (
                "split the payments module into gateway, ledger and refunds",
                "Split app/payments.py (2,400 lines) into app/payments/gateway.py, ledger.py and refunds.py; public names re-exported from __init__.",
                [
                    "Write file_path=app/payments/gateway.py",
                    "Write file_path=app/payments/ledger.py",
                    "Write file_path=app/payments/refunds.py",
                ],
            ),
            (
                "run everything",
                "1,869 passed, 4 failed: the refund tests import the private _round_cents, now in ledger.",
                ["Bash command=pytest -q"],
            ),
            (
                "fix those four",
                "Made round_cents public in ledger and updated the four refund tests; 1,873 passed.",
                ["Edit file_path=tests/test_refunds.py"],
            ),
        ],
    ),
    "sess-merge": (
        "2026-05-06",
        [
            (
                "which PR changed the merge method to squash?",
                "PR #418 'Require squash merges' changed the repository setting and added the check in .github/workflows/pr.yml.",
                ["Bash command=gh pr list --search squash --state merged"],
            ),
            (
                "and who reviewed it",
                "It was approved by dana-k and merged on 2026-04-30.",
                ["Bash command=gh pr view 418"],
            ),
        ],
    ),
    "sess-deploy": (
        "2026-05-20",
        [
            (
                "deploy the api to production",
                "Deploying with `fly deploy --app shop-api`. Health check failed: release v73 exited with code 137 during boot.",
                ["Bash command=fly deploy --app shop-api"],
            ),
            (
                "137 means what here",
                "Exit 137 is SIGKILL from the OOM killer: the new image loads the 600 MB recommendation model at import, and the machine has 512 MB.",
                ["Bash command=fly logs --app shop-api"],
            ),
            (
                "bump the memory",
                "Scaled to 1 GB with `fly scale memory 1024`; v74 is healthy, p95 latency 180 ms.",
                ["Bash command=fly scale memory 1024"],
            ),
        ],
    ),
    "sess-flaky": (
        "2026-06-03",
        [
            (
                "test_checkout_total is flaky again",
                "It fails 1 in 12 runs: the fixture builds prices from floats, and 0.1+0.2 rounding gives 30.000000000000004 against 30.00.",
                ["Bash command=pytest -q tests/test_checkout.py --count 50"],
            ),
            (
                "use decimals",
                "The price fixture now uses Decimal('10.10'); 500 runs, 0 failures.",
                ["Edit file_path=tests/conftest.py"],
            ),
        ],
    ),
    "sess-auth": (
        "2026-06-18",
        [
            (
                "users get logged out after a minute on safari",
                "The session cookie is set with SameSite=None but without Secure, so Safari drops it. Set Secure and SameSite=Lax.",
                ["Edit file_path=app/auth/cookies.py"],
            ),
            (
                "what's the session lifetime now",
                "SESSION_TTL is 14 days with sliding renewal every 24 h.",
                ["Read file_path=app/settings.py"],
            ),
            (
                "rotate the signing key",
                "Rotated: the new key id is k-2026-06; old tokens stay valid for 7 days through the key ring.",
                ["Bash command=./scripts/rotate_key.sh"],
            ),
        ],
    ),
    "sess-perf": (
        "2026-07-01",
        [
            (
                "the orders page is slow",
                "GET /orders takes 2.3 s: 1 query for orders then 250 for their customers (an N+1).",
                ["Bash command=py-spy record -o orders.svg"],
            ),
            (
                "fix the n+1",
                "Added select_related('customer'); GET /orders now 140 ms, 2 queries.",
                ["Edit file_path=app/orders/views.py"],
            ),
            (
                "add an index on created_at too",
                "Created index ix_orders_created_at CONCURRENTLY; the date filter went from 900 ms to 12 ms.",
                ["Write file_path=migrations/versions/0051_orders_created_at.py"],
            ),
        ],
    ),
    "sess-deps": (
        "2026-07-15",
        [
            (
                "upgrade pydantic to v2",
                "pydantic 2.7 is in; 37 models needed `model_config` instead of `class Config`, and `.dict()` became `.model_dump()` in 112 places.",
                ["Bash command=pip install -U pydantic", "Bash command=bump-pydantic app/"],
            ),
            (
                "mypy complains now",
                "mypy: 9 errors, all `Field(regex=...)` which is `pattern=` in v2; fixed.",
                ["Bash command=mypy app"],
            ),
        ],
    ),
    "sess-release": (
        "2026-08-04",
        [
            (
                "cut the 3.2.0 release",
                "Tagged v3.2.0 at 9f1c2ab; changelog lists 14 features and 22 fixes. PyPI upload done.",
                ["Bash command=git tag v3.2.0", "Bash command=twine upload dist/*"],
            ),
            (
                "the docs build failed on the release",
                "Sphinx failed: 'autodoc: failed to import module app.payments' because docs/requirements.txt lacks stripe. Added stripe==9.4.0.",
                ["Edit file_path=docs/requirements.txt"],
            ),
        ],
    ),
}

# (question, session, position); the second list is held out (never looked at while
# changing the ranking).
DEV = [
    ("what was the exact error when the staging migration failed?", "sess-migrate", 1),
    ("how did we make migration 0042 safe to rerun", "sess-migrate", 2),
    ("how many invoice rows were updated by the backfill", "sess-migrate", 4),
    ("when did we switch sqlite to WAL?", "sess-wal", 2),
    ("why don't we use WAL in CI", "sess-wal", 3),
    ("how many tests did we have before the payments refactor?", "sess-refactor", 1),
    ("which tests broke after splitting payments", "sess-refactor", 3),
    ("which PR made squash merges mandatory", "sess-merge", 1),
    ("why did the production deploy crash with 137", "sess-deploy", 2),
    ("what was the p95 latency after scaling the api", "sess-deploy", 3),
    ("why was the checkout total test flaky", "sess-flaky", 1),
    ("why were safari users logged out", "sess-auth", 1),
    ("what is the id of the rotated signing key", "sess-auth", 3),
    ("how slow was the orders page before the fix", "sess-perf", 1),
    ("how many models changed in the pydantic upgrade", "sess-deps", 1),
]
HELD_OUT = [
    ("what did alembic say about the duplicate column", "sess-migrate", 1),
    ("database is locked error in tests", "sess-wal", 1),
    ("coverage percentage before refactoring", "sess-refactor", 1),
    ("who approved the squash merge PR", "sess-merge", 2),
    ("how much memory did we give the api machine", "sess-deploy", 3),
    ("how many runs without failure after switching to Decimal", "sess-flaky", 2),
    ("how long do sessions last", "sess-auth", 2),
    ("what index did we add for the orders date filter", "sess-perf", 3),
    ("mypy errors after pydantic 2", "sess-deps", 2),
    ("why did sphinx fail when releasing 3.2.0", "sess-release", 2),
    ("which commit is v3.2.0 tagged at", "sess-release", 1),
    ("what did the profiler show on the orders endpoint", "sess-perf", 1),
]
