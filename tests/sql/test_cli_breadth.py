"""The CLI on writes, scripts and nested data: --through-script, and the optional JSON keys."""

from __future__ import annotations

import json

from prism_lineage.cli import main

SCHEMA = """
orders: {order_id: bigint, status: varchar, amount: decimal, items: "ARRAY<STRUCT<sku VARCHAR, qty INT>>"}
"""
SCRIPT = """CREATE TEMP TABLE paid AS SELECT order_id, amount FROM orders WHERE status = 'paid';
SELECT amount FROM paid;
DELETE FROM orders WHERE status = 'void';
"""


def explain(tmp_path, capsys, sql: str, *options: str):
    (tmp_path / "schema.yaml").write_text(SCHEMA)
    (tmp_path / "q.sql").write_text(sql)
    code = main(["explain", str(tmp_path / "q.sql"), "--schema", str(tmp_path / "schema.yaml"), *options])
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out


def test_through_script_follows_the_temp_table(tmp_path, capsys) -> None:
    plain = json.loads(explain(tmp_path, capsys, SCRIPT, "--format", "json"))
    through = json.loads(explain(tmp_path, capsys, SCRIPT, "--format", "json", "--through-script"))
    assert [s["column"] for s in plain["statements"][1]["fields"][0]["sources"]] == ["paid.amount"]
    assert [(s["column"], s["relationship"]) for s in through["statements"][1]["fields"][0]["sources"]] == [
        ("orders.amount", "value"), ("orders.status", "control")]


def test_rows_key_only_where_it_applies(tmp_path, capsys) -> None:
    answer = json.loads(explain(tmp_path, capsys, SCRIPT, "--format", "json"))
    select, delete = answer["statements"][1], answer["statements"][2]
    assert "rows" not in select
    assert (delete["kind"], delete["target"], delete["fields"]) == ("delete", "orders", [])
    assert delete["rows"] == [{"column": "orders.status", "relationship": "control", "transformation": "filter",
                               "confidence": "exact"}]


def test_path_key_and_text(tmp_path, capsys) -> None:
    sql = "SELECT o.order_id, i.sku FROM orders AS o CROSS JOIN UNNEST(o.items) AS i"
    answer = json.loads(explain(tmp_path, capsys, sql, "--format", "json", "--dialect", "duckdb"))
    order_id, sku = answer["statements"][0]["fields"]
    assert "path" not in order_id["sources"][0]
    assert sku["sources"] == [{"column": "orders.items", "relationship": "value", "transformation": "generator",
                               "confidence": "exact", "path": "items[].sku"},
                              # the items decide how many rows each order makes (trial 69)
                              {"column": "orders.items", "relationship": "control", "transformation": "generator",
                               "confidence": "exact"}]
    text = explain(tmp_path, capsys, sql, "--dialect", "duckdb")
    # The path is shown apart from its column, relative to it, in a column of its own.
    assert "    value     orders.order_id          identity     exact\n" in text
    assert "    value     orders.items     [].sku  generator    exact\n" in text


def test_delete_text_lists_the_rows(tmp_path, capsys) -> None:
    text = explain(tmp_path, capsys, "DELETE FROM orders WHERE status = 'void'")
    assert text == ("statement 1: delete → orders\n  reads: orders   writes: orders\n  (rows changed, removed or added)\n"
                    "    control   orders.status  filter       exact\n")


def test_dialect_aliases(tmp_path, capsys) -> None:
    text = explain(tmp_path, capsys, "SELECT TOP 1 order_id FROM orders", "--dialect", "mssql")
    assert "orders.order_id" in text
