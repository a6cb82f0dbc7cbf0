"""A real git repository on disk for the staleness tests, and a project memory in it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

PDF = "\n".join(
    [
        "import io",
        "from billing.model import Invoice, LineItem",
        "",
        "",
        "def render_invoice(invoice: Invoice) -> bytes:",
        '    """Render one invoice as a PDF document."""',
        "    buffer = io.BytesIO()",
        "    header = make_header(invoice.customer, invoice.number)",
        "    for item in invoice.items:",
        "        draw_line_item(buffer, item.description, item.amount)",
        "    totals = compute_totals(invoice.items, invoice.currency)",
        "    draw_totals(buffer, totals, invoice.currency)",
        "    return buffer.getvalue()",
        "",
        "",
        "def make_header(customer: str, number: str) -> str:",
        '    return f"Invoice {number} for {customer}"',
        "",
        "",
        "def draw_line_item(buffer: io.BytesIO, description: str, amount: int) -> None:",
        '    buffer.write(f"{description:40} {amount:>10}\\n".encode())',
        "",
        "",
        "def compute_totals(items: list[LineItem], currency: str) -> dict[str, int]:",
        "    net = sum(item.amount for item in items)",
        '    return {"net": net, "tax": net * 19 // 100, "currency": currency}',
        "",
    ]
)


class Repo:
    PDF = PDF

    def __init__(self, root: Path) -> None:
        self.root = root

    def git(self, *args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(self.root), *args], check=True, capture_output=True, text=True
        ).stdout

    def write(self, rel: str, text: str) -> Path:
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        return p

    def commit(self, message: str = "change") -> None:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)


@pytest.fixture
def repo(env, monkeypatch: pytest.MonkeyPatch) -> Repo:
    root = env.project("shop")
    r = Repo(root)
    r.git("init", "-q")
    r.git("config", "user.email", "t@example.com")
    r.git("config", "user.name", "T")
    r.write("src/billing/pdf.py", PDF)
    r.write("src/billing/model.py", "class Invoice:\n    customer: str\n    number: str\n")
    r.write("README.md", "# shop\n")
    r.commit("init")
    monkeypatch.chdir(root)
    return r
