"""A larger hand-written history set for benchmarks/history_quality.py: three projects'
Claude Code sessions (a Python billing service, a TypeScript web app, a Rust CLI) and
questions of the shapes issue 25 names: exact error text, PR and issue numbers, numbers,
when and in what order things happened, what was done. Written for this repository (not
from any published benchmark). Sessions share words on purpose (several migrations,
several PRs, several failing tests), so a question must find the one exchange that answers.
Each question names (session, exchange position); DEV is for tuning, HELD_OUT never is."""

PROJECTS = {
    "ledger": {
        "l-01": (
            "2026-01-12",
            [
                (
                    "set up the dev database for ledger",
                    "Created the ledger_dev database with docker compose (postgres 16.1) and ran `make migrate`; 31 migrations applied.",
                    ["Bash command=docker compose up -d db", "Bash command=make migrate"],
                ),
                (
                    "the seed script fails",
                    "scripts/seed.py fails with KeyError: 'currency' because the fixtures in seeds/accounts.json predate the multi-currency change. I added currency: EUR to the 14 account fixtures.",
                    ["Bash command=python scripts/seed.py", "Edit file_path=seeds/accounts.json"],
                ),
                (
                    "run the tests",
                    "pytest: 642 passed, 3 skipped in 58 s.",
                    ["Bash command=pytest -q"],
                ),
            ],
        ),
        "l-02": (
            "2026-01-19",
            [
                (
                    "invoices over 10k are rounded wrong",
                    "The rounding uses float: 10000.005 becomes 10000.00. I switched invoice totals to Decimal with ROUND_HALF_EVEN in ledger/money.py.",
                    ["Read file_path=ledger/money.py", "Edit file_path=ledger/money.py"],
                ),
                (
                    "does that change existing invoices?",
                    "No. Stored amounts are integer cents; only new totals are computed with Decimal. 2 tests asserted the old float result and I updated them.",
                    ["Bash command=pytest -q tests/test_money.py"],
                ),
                (
                    "open a PR for it",
                    "Opened PR #318 'Decimal rounding for invoice totals' against main.",
                    ["Bash command=gh pr create --title 'Decimal rounding for invoice totals'"],
                ),
            ],
        ),
        "l-03": (
            "2026-02-03",
            [
                (
                    "CI is red on main",
                    "The failing job is `integration`: test_webhook_retry times out after 30 s because the Stripe mock container did not start (port 12111 already allocated).",
                    ["Bash command=gh run view --log-failed"],
                ),
                (
                    "fix the port clash",
                    "The stripe-mock service and the local redis both mapped 12111. I moved stripe-mock to 12112 in docker-compose.ci.yml and STRIPE_API_BASE.",
                    ["Edit file_path=docker-compose.ci.yml"],
                ),
                (
                    "is CI green now",
                    "Yes, run 8841 passed: 4 jobs, 6 min 12 s.",
                    ["Bash command=gh run watch"],
                ),
            ],
        ),
        "l-04": (
            "2026-02-10",
            [
                (
                    "add a migration for the refunds table",
                    "Added migration 0032_refunds: table refunds (id, invoice_id fk, amount_cents, reason, created_at) with an index on invoice_id.",
                    ["Write file_path=migrations/0032_refunds.py"],
                ),
                (
                    "apply it on staging",
                    'It failed on staging: psycopg.errors.ForeignKeyViolation: insert or update on table "refunds" violates foreign key constraint "refunds_invoice_id_fkey". The backfill copies refunds of invoices that were hard-deleted in 2024.',
                    ["Bash command=make migrate ENV=staging"],
                ),
                (
                    "skip those orphans",
                    "The backfill now joins invoices and skips 37 orphan refunds, logged to refunds_orphans.csv. Migration applied on staging in 9 s.",
                    [
                        "Edit file_path=migrations/0032_refunds.py",
                        "Bash command=make migrate ENV=staging",
                    ],
                ),
            ],
        ),
        "l-05": (
            "2026-02-24",
            [
                (
                    "the monthly statement job is slow",
                    "statement_job takes 47 minutes for 18,000 customers: it runs one query per invoice line (N+1).",
                    ["Bash command=python -m cProfile -o prof.out jobs/statements.py"],
                ),
                (
                    "batch it",
                    "Rewrote the job to load lines with one query per 500 customers using selectinload. It now takes 3 min 40 s.",
                    ["Edit file_path=jobs/statements.py"],
                ),
                (
                    "merge it",
                    "Merged PR #334 'Batch statement queries' with a squash merge.",
                    ["Bash command=gh pr merge 334 --squash"],
                ),
            ],
        ),
        "l-06": (
            "2026-03-05",
            [
                (
                    "we got a duplicate invoice number in prod",
                    "Two invoices got INV-2026-00417: the number comes from max(number)+1 inside a transaction at READ COMMITTED, so two concurrent checkouts read the same max.",
                    [
                        'Bash command=psql -c "select number, count(*) from invoices group by 1 having count(*) > 1"'
                    ],
                ),
                (
                    "what should we do",
                    "Use a gapless counter table locked with SELECT ... FOR UPDATE per series; a sequence would leave gaps, which the auditors reject.",
                    [],
                ),
                (
                    "do it",
                    "Implemented invoice_counters with FOR UPDATE in ledger/numbering.py and a unique constraint invoices_number_key. Opened PR #341.",
                    [
                        "Edit file_path=ledger/numbering.py",
                        "Write file_path=migrations/0033_counters.py",
                    ],
                ),
            ],
        ),
        "l-07": (
            "2026-03-18",
            [
                (
                    "upgrade sqlalchemy to 2.0",
                    "Upgraded SQLAlchemy 1.4.49 to 2.0.28. 23 tests fail with RemovedIn20Warning turned into errors, mostly Query.get.",
                    ["Bash command=pip install -U sqlalchemy", "Bash command=pytest -q"],
                ),
                (
                    "fix them",
                    "Replaced session.query(X).get(id) with session.get(X, id) in 19 places and the engine.execute calls with connections. 671 passed.",
                    ["Bash command=rg -l 'query\\(.*\\)\\.get\\('", "Bash command=pytest -q"],
                ),
            ],
        ),
        "l-08": (
            "2026-04-02",
            [
                (
                    "the tax report shows the wrong VAT for Austria",
                    "The rate table had AT at 19 %; Austria's standard rate is 20 %. Fixed in ledger/tax_rates.yml.",
                    ["Edit file_path=ledger/tax_rates.yml"],
                ),
                (
                    "how many invoices were affected",
                    "312 invoices to Austrian customers between 2026-01-01 and 2026-03-31 used 19 %; total difference 2,418.60 EUR. Wrote them to reports/at_vat_fix.csv.",
                    ["Bash command=python scripts/vat_diff.py --country AT"],
                ),
                (
                    "release it",
                    "Tagged v2.7.1 and deployed; the changelog entry says 'Austrian VAT 20 %'.",
                    ["Bash command=git tag v2.7.1", "Bash command=make deploy"],
                ),
            ],
        ),
        "l-09": (
            "2026-04-20",
            [
                (
                    "move the webhook worker to celery",
                    "Moved webhook delivery from the cron loop to a Celery task deliver_webhook with max_retries=8 and exponential backoff starting at 30 s.",
                    ["Edit file_path=ledger/webhooks.py"],
                ),
                (
                    "the worker crashes on start",
                    "celery worker exits with kombu.exceptions.OperationalError: [Errno 111] Connection refused: the broker URL still pointed at redis://localhost:6380.",
                    ["Bash command=celery -A ledger worker -l info"],
                ),
                (
                    "fixed?",
                    "Set CELERY_BROKER_URL to redis://redis:6379/2 in the compose file; the worker starts and delivered 1,206 queued webhooks in 4 minutes.",
                    ["Edit file_path=docker-compose.yml"],
                ),
            ],
        ),
    },
    "webapp": {
        "w-01": (
            "2026-01-14",
            [
                (
                    "the build fails after the next upgrade",
                    "next build fails: Type error: Property 'params' does not exist on type 'PageProps' in app/orders/[id]/page.tsx, since Next 15 passes params as a Promise.",
                    ["Bash command=npm run build"],
                ),
                (
                    "fix the pages",
                    "Awaited params in 9 route pages and updated the PageProps type. Build passes; bundle is 412 kB first-load JS.",
                    ["Edit file_path=app/orders/[id]/page.tsx", "Bash command=npm run build"],
                ),
            ],
        ),
        "w-02": (
            "2026-01-28",
            [
                (
                    "the login page flickers",
                    "The flash comes from the theme being read from localStorage after hydration. I set the theme class in a blocking script in the root layout.",
                    ["Edit file_path=app/layout.tsx"],
                ),
                (
                    "and the hydration warning?",
                    'Warning: Text content did not match. Server: "Jan 28" Client: "Jan 27" — the date is formatted in the server\'s UTC vs the browser\'s zone. I format it on the client only.',
                    ["Edit file_path=components/LastLogin.tsx"],
                ),
                (
                    "ship it",
                    "Opened PR #1207 'No theme flash, client-side last-login date'; review requested from @mara.",
                    ["Bash command=gh pr create"],
                ),
            ],
        ),
        "w-03": (
            "2026-02-06",
            [
                (
                    "switch the tests from jest to vitest",
                    "Migrated to vitest 1.3: 214 test files, jest.fn -> vi.fn, the jsdom environment kept. Runtime went from 94 s to 31 s.",
                    ["Bash command=npx vitest run"],
                ),
                (
                    "some snapshot tests fail",
                    "11 snapshot files fail because vitest prints Object {} differently; I regenerated them with -u after checking the diffs were format-only.",
                    ["Bash command=npx vitest run -u"],
                ),
            ],
        ),
        "w-04": (
            "2026-02-19",
            [
                (
                    "checkout button does nothing on safari",
                    "On Safari 16 the click handler throws TypeError: structuredClone is not a function inside the cart reducer.",
                    ["Bash command=npx playwright test checkout --project=webkit"],
                ),
                (
                    "polyfill or replace?",
                    "Replaced structuredClone with a spread copy of the cart (it holds plain objects). Playwright webkit checkout test passes.",
                    ["Edit file_path=lib/cart.ts"],
                ),
                (
                    "which PR",
                    "PR #1233 'Safari 16: no structuredClone in the cart', merged by @mara on Feb 20.",
                    ["Bash command=gh pr view 1233"],
                ),
            ],
        ),
        "w-05": (
            "2026-03-03",
            [
                (
                    "lighthouse score dropped",
                    "Lighthouse performance on /products fell from 92 to 67: the hero image is a 2.8 MB PNG loaded eagerly and LCP is 4.9 s.",
                    ["Bash command=npx lighthouse http://localhost:3000/products"],
                ),
                (
                    "fix the image",
                    "Converted it to AVIF (184 kB) with next/image priority and sizes. LCP is 1.7 s, score 94.",
                    ["Edit file_path=app/products/page.tsx"],
                ),
            ],
        ),
        "w-06": (
            "2026-03-16",
            [
                (
                    "add rate limiting to the api routes",
                    "Added an upstash sliding-window limiter: 60 requests per minute per IP on /api/*, 429 with Retry-After.",
                    ["Write file_path=middleware.ts"],
                ),
                (
                    "e2e tests now fail with 429",
                    "The playwright suite hits the limit from one IP. The limiter is skipped when RATE_LIMIT_DISABLED=1, which the e2e job sets.",
                    ["Edit file_path=middleware.ts", "Edit file_path=.github/workflows/e2e.yml"],
                ),
                ("what's the PR", "PR #1251 'Rate limit the API routes'.", []),
            ],
        ),
        "w-07": (
            "2026-03-30",
            [
                (
                    "the orders table is slow with 5000 rows",
                    "Rendering 5,000 rows takes 1.8 s of scripting. I virtualized the table with @tanstack/react-virtual: 38 ms.",
                    ["Edit file_path=components/OrdersTable.tsx"],
                ),
                (
                    "sorting broke",
                    "Sorting compared formatted strings ('1,200' < '900'). It now sorts on the raw cents value.",
                    ["Edit file_path=components/OrdersTable.tsx"],
                ),
            ],
        ),
        "w-08": (
            "2026-04-13",
            [
                (
                    "deploy to vercel failed",
                    "Vercel build error: Error: Cannot find module '@prisma/client' — the postinstall prisma generate step was removed in the lockfile cleanup.",
                    ["Bash command=vercel logs"],
                ),
                (
                    "restore it",
                    'Restored "postinstall": "prisma generate" in package.json. Deployment dpl_8f2k succeeded at 14:22.',
                    ["Edit file_path=package.json"],
                ),
                (
                    "write that down in the runbook",
                    "Added a 'Vercel build: prisma client missing' section to docs/runbook.md.",
                    ["Edit file_path=docs/runbook.md"],
                ),
            ],
        ),
    },
    "rcli": {
        "r-01": (
            "2026-01-09",
            [
                (
                    "start the rust cli for syncing notes",
                    "Created the `notesync` crate with clap 4 derive: subcommands push, pull, status. cargo build ok.",
                    ["Bash command=cargo new notesync"],
                ),
                (
                    "add config file support",
                    "Reads ~/.config/notesync/config.toml with serde; the remote defaults to https://notes.example.invalid.",
                    ["Edit file_path=src/config.rs"],
                ),
            ],
        ),
        "r-02": (
            "2026-01-22",
            [
                (
                    "cargo build fails on the CI runner",
                    "error[E0658]: use of unstable library feature 'let_chains' — the runner has rustc 1.74; we use let chains from 1.88. I set rust-version = \"1.88\" and the CI toolchain to 1.88.",
                    ["Bash command=cargo build", "Edit file_path=rust-toolchain.toml"],
                ),
                (
                    "add clippy to CI",
                    "CI now runs cargo clippy -- -D warnings; it found 6 warnings, fixed (needless_borrow x4, redundant_clone x2).",
                    ["Edit file_path=.github/workflows/ci.yml"],
                ),
            ],
        ),
        "r-03": (
            "2026-02-04",
            [
                (
                    "pull is slow on big vaults",
                    "pull of a 12,000-note vault takes 41 s: every file is hashed with sha256 even when its mtime did not change.",
                    ["Bash command=cargo run --release -- pull --timings"],
                ),
                (
                    "cache the hashes",
                    "Hashes are cached in .notesync/index.bin keyed by (path, mtime, size). pull takes 2.3 s on the same vault.",
                    ["Edit file_path=src/index.rs"],
                ),
                ("issue number?", "That closes issue #58 'pull rehashes everything'.", []),
            ],
        ),
        "r-04": (
            "2026-02-17",
            [
                (
                    "windows paths break push",
                    "On Windows push fails: Error: invalid path component 'notes\\\\daily\\\\2026-02-17.md' — we joined paths with '/' strings.",
                    ["Bash command=cargo test --target x86_64-pc-windows-gnu"],
                ),
                (
                    "use PathBuf everywhere",
                    "Replaced the string joins with PathBuf and convert to '/' only on the wire. 88 tests pass on windows and linux.",
                    ["Edit file_path=src/paths.rs"],
                ),
            ],
        ),
        "r-05": (
            "2026-03-02",
            [
                (
                    "a user lost a note during sync",
                    "Race: push wrote the remote before the local rename finished; a crash between the two lost the local copy. Reported in issue #71.",
                    ["Read file_path=src/push.rs"],
                ),
                (
                    "make it safe",
                    "Push now writes to a temp file, fsyncs, renames, then uploads; the remote write is last. Added a crash test with a failpoint.",
                    ["Edit file_path=src/push.rs", "Write file_path=tests/crash.rs"],
                ),
                (
                    "release",
                    "Released notesync 0.4.0 on crates.io with the fix for issue #71.",
                    ["Bash command=cargo publish"],
                ),
            ],
        ),
        "r-06": (
            "2026-03-19",
            [
                (
                    "the tui freezes on resize",
                    "The ratatui loop blocks on the network call, so resize events queue up. Moved sync to a tokio task with an mpsc channel.",
                    ["Edit file_path=src/tui.rs"],
                ),
                (
                    "memory use?",
                    "Peak RSS is 23 MB on the 12,000-note vault (was 61 MB with the old string cache).",
                    ["Bash command=/usr/bin/time -v notesync tui"],
                ),
            ],
        ),
        "r-07": (
            "2026-04-08",
            [
                (
                    "the conflict resolution picks the wrong side",
                    "On equal mtimes we kept the remote copy; now a conflict writes both: note.md and note.conflict-<host>.md.",
                    ["Edit file_path=src/merge.rs"],
                ),
                (
                    "PR for that",
                    "PR #92 'Keep both sides of a sync conflict', merged after review by @ivo.",
                    ["Bash command=gh pr merge 92"],
                ),
                (
                    "how many users hit it",
                    "The telemetry opt-in shows 14 conflict resolutions in March, 3 of which dropped a newer local edit.",
                    [],
                ),
            ],
        ),
    },
}

SESSIONS = {sid: s for project in PROJECTS.values() for sid, s in project.items()}
PROJECT_OF = {sid: name for name, project in PROJECTS.items() for sid in project}

DEV = [
    ("what was the KeyError when seeding the dev database", "l-01", 2),
    ("how many migrations were applied when setting up ledger dev", "l-01", 1),
    ("which PR introduced Decimal rounding", "l-02", 3),
    ("why were invoice totals over 10000 wrong", "l-02", 1),
    ("which port clashed in the CI integration job", "l-03", 2),
    ("what timed out in the integration tests", "l-03", 1),
    ("exact error of the refunds migration on staging", "l-04", 2),
    ("how many orphan refunds were skipped", "l-04", 3),
    ("how long did the statement job take before batching", "l-05", 1),
    ("PR number of the statement batching", "l-05", 3),
    ("which invoice number was duplicated in production", "l-06", 1),
    ("why not use a postgres sequence for invoice numbers", "l-06", 2),
    ("which sqlalchemy version did we upgrade from", "l-07", 1),
    ("what was the wrong VAT rate for Austria", "l-08", 1),
    ("which version fixed the Austrian VAT", "l-08", 3),
    ("celery worker connection refused error", "l-09", 2),
    ("how many retries does webhook delivery get", "l-09", 1),
    ("next 15 build type error about params", "w-01", 1),
    ("first-load JS bundle size after the next upgrade", "w-01", 2),
    ("hydration mismatch text content did not match", "w-02", 2),
    ("how long did the test suite take under jest", "w-03", 1),
    ("how many snapshot files were regenerated", "w-03", 2),
    ("safari checkout error", "w-04", 1),
    ("who merged the safari fix and when", "w-04", 3),
    ("lighthouse score on products before the fix", "w-05", 1),
    ("what rate limit did we put on the api", "w-06", 1),
    ("how are e2e tests exempt from rate limiting", "w-06", 2),
    ("why did sorting the orders table break", "w-07", 2),
    ("vercel cannot find module prisma client", "w-08", 1),
    ("which clap version does notesync use", "r-01", 1),
    ("rustc version on the CI runner when the build failed", "r-02", 1),
    ("how many clippy warnings were fixed", "r-02", 2),
    ("which issue was about pull rehashing", "r-03", 3),
    ("invalid path component error on windows", "r-04", 1),
    ("which release fixed the lost note", "r-05", 3),
    ("peak memory of the tui on the big vault", "r-06", 2),
]

HELD_OUT = [
    ("how many account fixtures needed a currency", "l-01", 2),
    ("test count after setting up the dev db", "l-01", 3),
    ("did the rounding change alter stored invoices", "l-02", 2),
    ("which CI run went green after the stripe mock fix", "l-03", 3),
    ("foreign key violation refunds_invoice_id_fkey", "l-04", 2),
    ("how fast is the statement job after the rewrite", "l-05", 2),
    ("what isolation level caused the duplicate invoice numbers", "l-06", 1),
    ("which PR added the invoice counter table", "l-06", 3),
    ("how many places used Query.get", "l-07", 2),
    ("how much money did the Austria VAT mistake amount to", "l-08", 2),
    ("how many queued webhooks were delivered after the broker fix", "l-09", 3),
    ("which broker url does celery use now", "l-09", 3),
    ("how many route pages awaited params", "w-01", 2),
    ("PR for the theme flash on login", "w-02", 3),
    ("vitest migration speedup", "w-03", 1),
    ("structuredClone is not a function", "w-04", 1),
    ("PR number of the safari cart fix", "w-04", 3),
    ("how big was the hero image png", "w-05", 1),
    ("LCP after converting to AVIF", "w-05", 2),
    ("which PR added rate limiting", "w-06", 3),
    ("how long did rendering 5000 orders take", "w-07", 1),
    ("which deployment succeeded after restoring prisma generate", "w-08", 2),
    ("where did we document the prisma build failure", "w-08", 3),
    ("where is the notesync config file read from", "r-01", 2),
    ("E0658 let_chains unstable feature", "r-02", 1),
    ("how long did pull take on 12000 notes before caching", "r-03", 1),
    ("where are the file hashes cached", "r-03", 2),
    ("how many tests pass on windows after the PathBuf change", "r-04", 2),
    ("which issue reported the lost note race", "r-05", 1),
    ("order of writes in push after the crash fix", "r-05", 2),
    ("why does the tui freeze when resizing", "r-06", 1),
    ("PR keeping both sides of a conflict", "r-07", 2),
    ("how many conflicts dropped a newer local edit", "r-07", 3),
    ("when did we switch from jest to vitest", "w-03", 1),
]
