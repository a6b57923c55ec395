"""The surface of ``explain`` on the command line and in Python (issue 9 items 13-22): the
table-level summary, the text layout, asking about some columns, inputs, drawings, errors."""

from __future__ import annotations

import json

import prism_lineage
from prism_lineage.cli import main

SCHEMA = """
orders: {order_id: bigint, customer_id: bigint, status: varchar, amount: decimal,
         items: "ARRAY<STRUCT<sku VARCHAR, qty INT>>", payload: json}
customers: {customer_id: bigint, name: varchar, country: varchar}
refunds: {order_id: bigint, amount: decimal}
summary: {customer_id: bigint, total: decimal}
"""


def run(tmp_path, capsys, sql: str, *options: str, schema: bool = True) -> tuple[int, str, str]:
    (tmp_path / "schema.yaml").write_text(SCHEMA)
    (tmp_path / "q.sql").write_text(sql, encoding="utf-8")
    extra = ["--schema", str(tmp_path / "schema.yaml")] if schema else []
    code = main(["explain", str(tmp_path / "q.sql"), *extra, *options])
    out = capsys.readouterr()
    return code, out.out, out.err


def answer(tmp_path, capsys, sql: str, *options: str) -> dict:
    code, out, err = run(tmp_path, capsys, sql, "--format", "json", *options)
    assert code == 0, err
    return json.loads(out)


# --- item 19: reads and writes ----------------------------------------------------------------


def test_reads_lists_every_table_scanned_in_any_clause(tmp_path, capsys) -> None:
    sql = ("WITH big AS (SELECT customer_id FROM orders WHERE amount > 100) "
           "SELECT c.name FROM customers c WHERE c.customer_id IN (SELECT customer_id FROM big) "
           "AND NOT EXISTS (SELECT 1 FROM refunds r WHERE r.order_id = c.customer_id)")
    [statement] = answer(tmp_path, capsys, sql)["statements"]
    assert (statement["reads"], statement["writes"]) == (["customers", "orders", "refunds"], [])


def test_writes_is_the_target_and_reads_the_tables_read(tmp_path, capsys) -> None:
    sql = """INSERT INTO summary SELECT customer_id, SUM(amount) FROM orders GROUP BY customer_id;
MERGE INTO summary s USING refunds r ON s.customer_id = r.order_id WHEN MATCHED THEN UPDATE SET total = s.total - r.amount;
CREATE VIEW paid AS SELECT * FROM orders WHERE status = 'paid';
DROP TABLE refunds;
SELECT 1 AS one"""
    statements = answer(tmp_path, capsys, sql)["statements"]
    assert [(s["kind"], s["reads"], s["writes"]) for s in statements] == [
        ("insert", ["orders"], ["summary"]),
        ("merge", ["refunds", "summary"], ["summary"]),
        ("create_view", ["orders"], ["paid"]),
        ("drop", [], ["refunds"]),
        ("select", [], []),
    ]


def test_reads_follow_the_script_with_through_script(tmp_path, capsys) -> None:
    sql = "CREATE TEMP TABLE paid AS SELECT * FROM orders WHERE status = 'paid';\nSELECT amount FROM paid"
    plain = answer(tmp_path, capsys, sql)["statements"][1]
    through = answer(tmp_path, capsys, sql, "--through-script")["statements"][1]
    assert (plain["reads"], through["reads"]) == (["paid"], ["orders"])


def test_text_has_the_tables_as_a_header_line(tmp_path, capsys) -> None:
    code, out, _ = run(tmp_path, capsys, "INSERT INTO summary SELECT c.customer_id, o.amount FROM orders o "
                                         "JOIN customers c ON o.customer_id = c.customer_id")
    assert code == 0
    assert out.splitlines()[:2] == ["statement 1: insert → summary", "  reads: customers, orders   writes: summary"]


def test_python_answer_has_reads_and_writes() -> None:
    explanation = prism_lineage.explain("UPDATE t SET a = u.b FROM u WHERE t.k = u.k", dialect="postgres")
    [statement] = explanation.statements
    assert (statement.reads, statement.writes) == (["t", "u"], ["t"])
