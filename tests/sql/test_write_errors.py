"""Writes given bad input: a clear, typed error naming the problem (and exit codes from the CLI)."""

from __future__ import annotations

import pytest

import prism_lineage
from prism_lineage.cli import main
from prism_lineage.errors import InvalidStatementError, UnknownColumnError, UnknownTableError, UnknownTargetError

SCHEMA = {
    "orders": {"order_id": "int", "customer_id": "int", "amount": "decimal"},
    "totals": {"customer_id": "int", "total": "decimal"},
}


def explain(sql: str, dialect: str = "duckdb"):
    return prism_lineage.explain(sql, schema=SCHEMA, dialect=dialect)


def test_insert_names_a_column_the_target_does_not_have() -> None:
    with pytest.raises(UnknownColumnError) as caught:
        explain("INSERT INTO totals (customer_id, totl) SELECT customer_id, amount FROM orders")
    assert str(caught.value) == ("unknown column 'totl' of totals (did you mean total?); available: customer_id, total "
                                 "(at line 1, column 34)")


def test_insert_query_returns_more_columns_than_listed() -> None:
    with pytest.raises(InvalidStatementError, match=r"INSERT INTO totals writes 1 column \(customer_id\) but its "
                                                    r"query returns 2"):
        explain("INSERT INTO totals (customer_id) SELECT customer_id, amount FROM orders")


def test_insert_without_list_must_match_the_declared_columns() -> None:
    with pytest.raises(InvalidStatementError, match=r"writes 2 columns \(customer_id, total\) but its query returns 3"):
        explain("INSERT INTO totals SELECT customer_id, amount, order_id FROM orders")


def test_postgres_insert_may_give_fewer_values_than_columns() -> None:
    answer = explain("INSERT INTO totals SELECT customer_id FROM orders", dialect="postgres")
    assert [f.name for f in answer.statements[0].fields] == ["customer_id"]


def test_a_column_written_twice() -> None:
    with pytest.raises(InvalidStatementError, match="column 'total' of totals is written twice"):
        explain("INSERT INTO totals (total, total) SELECT amount, amount FROM orders")


def test_merge_into_a_table_the_schema_does_not_declare() -> None:
    with pytest.raises(UnknownTargetError) as caught:
        explain("MERGE INTO totalz t USING orders s ON t.customer_id = s.customer_id "
                "WHEN MATCHED THEN UPDATE SET total = s.amount")
    assert isinstance(caught.value, UnknownTableError)
    assert caught.value.message == (
        "MERGE target 'totalz' is not in the schema: MERGE changes the rows of an existing table, so the schema "
        "given must declare it (tables: orders, totals)")


def test_update_and_delete_of_an_undeclared_table_with_a_schema() -> None:
    with pytest.raises(UnknownTargetError, match="UPDATE target 'totalz'"):
        explain("UPDATE totalz SET total = 0")
    with pytest.raises(UnknownTargetError, match="DELETE target 'totalz'"):
        explain("DELETE FROM totalz")


def test_without_a_schema_any_target_is_accepted() -> None:
    answer = prism_lineage.explain("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v")
    [field] = answer.statements[0].fields
    assert (field.name, [s.column for s in field.sources if s.relationship == "value"]) == ("v", ["s.v"])


def test_merge_insert_counts_must_agree() -> None:
    with pytest.raises(InvalidStatementError, match="lists 2 columns but 1 values"):
        explain("MERGE INTO totals t USING orders s ON t.customer_id = s.customer_id "
                "WHEN NOT MATCHED THEN INSERT (customer_id, total) VALUES (s.customer_id)")


def test_merge_insert_without_columns_needs_the_target_declared() -> None:
    with pytest.raises(InvalidStatementError, match="needs the columns of t: declare it in the schema"):
        prism_lineage.explain("MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED THEN INSERT VALUES (s.id)")


def test_update_sets_an_unknown_column() -> None:
    with pytest.raises(UnknownColumnError, match="unknown column 'totl' of totals"):
        explain("UPDATE totals SET totl = 0")


@pytest.mark.parametrize("sql, code, message", [
    ("INSERT INTO totals (nope) SELECT 1", 5, "unknown column 'nope' of totals"),
    ("INSERT INTO totals SELECT 1", 6, "INSERT INTO totals writes 2 columns (customer_id, total) but its query returns 1"),
    ("MERGE INTO nope USING orders ON TRUE WHEN MATCHED THEN DELETE", 5, "MERGE target 'nope' is not in the schema"),
])
def test_cli_exit_codes(tmp_path, capsys, sql: str, code: int, message: str) -> None:
    schema = tmp_path / "schema.yaml"
    schema.write_text("orders: {order_id: int, customer_id: int, amount: decimal}\n"
                      "totals: {customer_id: int, total: decimal}\n")
    query = tmp_path / "q.sql"
    query.write_text(sql)
    assert main(["explain", str(query), "--schema", str(schema), "--dialect", "duckdb"]) == code
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("prism-lineage: error: ") and message in err[0]


# --- Postgres data-modifying statements in WITH (returning.py) ----------------------------------


def test_data_modifying_cte_without_returning_read_is_refused() -> None:
    with pytest.raises(InvalidStatementError, match=r"the CTE u is an UPDATE without RETURNING: it has no rows to read"):
        explain("WITH u AS (UPDATE totals SET total = 0) SELECT * FROM u", dialect="postgres")


def test_data_modifying_cte_without_returning_unread_answers_both_writes() -> None:
    answer = explain("WITH d AS (DELETE FROM orders WHERE amount < 0) "
                     "INSERT INTO totals SELECT customer_id, amount FROM orders", dialect="postgres")
    assert [(s.kind, s.target) for s in answer.statements] == [("delete", "orders"), ("insert", "totals")]


def test_data_modifying_cte_insert_on_conflict_returning_is_refused() -> None:
    with pytest.raises(InvalidStatementError, match=r"RETURNING of an INSERT … ON CONFLICT in the CTE n is not "
                                                    r"followed"):
        explain("WITH n AS (INSERT INTO totals (customer_id, total) SELECT customer_id, amount FROM orders "
                "ON CONFLICT (customer_id) DO UPDATE SET total = excluded.total RETURNING *) SELECT * FROM n",
                dialect="postgres")


def test_data_modifying_cte_insert_into_undeclared_table_without_list_is_refused() -> None:
    with pytest.raises(InvalidStatementError, match=r"RETURNING of the INSERT into archive in the CTE n is not "
                                                    r"followed: the table's columns are not in the schema"):
        explain("WITH n AS (INSERT INTO archive SELECT customer_id, amount FROM orders RETURNING *) SELECT * FROM n",
                dialect="postgres")


# --- MySQL INSERT … ON DUPLICATE KEY UPDATE (modify.py mysql_duplicate) ---------------------------


def test_mysql_duplicate_key_update_has_no_excluded() -> None:
    with pytest.raises(InvalidStatementError, match=r"reads excluded\.total, but no table of that name is in scope: "
                                                    r"only the target totals and the inserted row"):
        explain("INSERT INTO totals (customer_id, total) VALUES (1, 2) ON DUPLICATE KEY UPDATE total = excluded.total",
                dialect="mysql")


def test_mysql_duplicate_key_update_select_column_under_group_by_is_refused() -> None:
    with pytest.raises(InvalidStatementError, match=r"reads orders\.amount of the SELECT's tables, which is followed "
                                                    r"only for a SELECT without GROUP BY"):
        explain("INSERT INTO totals (customer_id, total) SELECT customer_id, SUM(amount) FROM orders GROUP BY "
                "customer_id ON DUPLICATE KEY UPDATE total = orders.amount", dialect="mysql")


def test_mysql_row_alias_column_named_like_a_target_column_is_ambiguous() -> None:
    with pytest.raises(InvalidStatementError, match=r"ambiguous column 'total': a column of totals or of the row "
                                                    r"alias new"):
        explain("INSERT INTO totals (customer_id, total) VALUES (1, 2) AS new(total, x) "
                "ON DUPLICATE KEY UPDATE total = total + 1", dialect="mysql")


def test_mysql_duplicate_key_update_values_reads_the_inserted_column() -> None:
    answer = explain("INSERT INTO totals (customer_id, total) SELECT customer_id, amount FROM orders "
                     "ON DUPLICATE KEY UPDATE customer_id = VALUES(total)", dialect="mysql")
    sources = {f.name: sorted(s.column for s in f.sources if s.relationship == "value")
               for f in answer.statements[0].fields}
    assert sources == {"customer_id": ["orders.amount", "orders.customer_id"], "total": ["orders.amount"]}
    assert any("PRIMARY KEY or UNIQUE indexes" in u.reason for u in answer.statements[0].uncertain)
