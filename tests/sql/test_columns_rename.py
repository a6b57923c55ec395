"""DuckDB's ``COLUMNS(* RENAME a AS z)`` names the column ``z`` where COLUMNS is the whole select
item, and ``a`` inside an expression (field trial 72; it was ``a`` everywhere, so a CREATE TABLE …
AS wrote the old name).  DuckDB names the columns: the oracle."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage

SCHEMA = {"t": {"a": "int", "b": "int", "c": "int"}}


@pytest.mark.parametrize("sql", [
    "SELECT COLUMNS(* RENAME a AS z) FROM t",
    "SELECT COLUMNS(* RENAME (a AS z, c AS y)) FROM t",
    "SELECT COLUMNS(t.* RENAME a AS z) FROM t",
    "SELECT COLUMNS(* RENAME (a AS z, c AS y)) + 1 FROM t",
    "SELECT max(COLUMNS(* RENAME a AS z)) FROM t",
    "SELECT COLUMNS(* RENAME a AS z) AS q FROM t",
])
def test_columns_rename_names_as_duckdb(sql: str) -> None:
    connection = duckdb.connect()
    connection.execute("CREATE TABLE t (a INT, b INT, c INT)")
    names = [d[0] for d in connection.execute(sql).description]
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in answer.fields] == names
    assert [[s.column for s in f.sources] for f in answer.fields] == [["t.a"], ["t.b"], ["t.c"]]
