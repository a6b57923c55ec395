"""The names of a VALUES list's unnamed columns (field trial 57), DuckDB the oracle."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage


@pytest.mark.parametrize("sql", [
    "SELECT * FROM (VALUES (1, 'a'), (2, 'b'))",
    "SELECT * FROM (VALUES (1, 'a')) AS v",
    "SELECT * FROM (VALUES (1, 'a', 2)) AS v(x)",
    "SELECT * FROM VALUES ('1-2', '3-4', 'a-z', NULL) AS r(v)",
    "SELECT col0, col1 FROM (VALUES (1, 'a'), (2, 'b'))",
    "SELECT v.col1 FROM (VALUES (1, 'a')) AS v",
    "VALUES (1, 'x'), (2, 'y')",
])
def test_values_columns_are_named_as_duckdb_names_them(sql: str) -> None:
    names = duckdb.sql(sql).columns
    [answer] = prism_lineage.explain(sql, dialect="duckdb").statements
    assert [f.name for f in answer.fields] == names


def test_a_created_table_gets_duckdbs_names() -> None:
    sql = "CREATE TABLE x AS SELECT * FROM (VALUES (1, 'a'), (2, 'b'))"
    connection = duckdb.connect()
    connection.execute(sql)
    [answer] = prism_lineage.explain(sql, dialect="duckdb").statements
    assert [f.name for f in answer.fields] == connection.sql("SELECT * FROM x").columns == ["col0", "col1"]
    # Elsewhere the standard names stay (PostgreSQL, Snowflake, SQLite: column1, column2).
    [answer] = prism_lineage.explain("SELECT * FROM (VALUES (1, 'a')) AS v", dialect="postgres").statements
    assert [f.name for f in answer.fields] == ["column1", "column2"]
