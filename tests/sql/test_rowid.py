"""The rowid pseudo-column (field trial 67): SQLite and DuckDB run these; it reads no column."""

from __future__ import annotations

import sqlite3

import duckdb
import pytest

import prism_lineage

SCHEMA = {"t": {"a": "int", "b": "varchar"}}
QUERIES = ["SELECT rowid, a FROM t WHERE rowid > 1", "SELECT t.rowid AS r FROM t ORDER BY rowid",
           "DELETE FROM t WHERE rowid NOT IN (SELECT min(rowid) FROM t GROUP BY a)"]


@pytest.mark.parametrize("sql", QUERIES)
@pytest.mark.parametrize("dialect", ["sqlite", "duckdb"])
def test_rowid_reads_no_column(sql: str, dialect: str) -> None:
    connection = sqlite3.connect(":memory:") if dialect == "sqlite" else duckdb.connect()
    connection.execute("CREATE TABLE t (a INT, b VARCHAR)")
    connection.execute(sql)  # valid in the engine
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect=dialect).statements
    for field in answer.fields:
        assert all(s.column != "t.rowid" for s in field.sources)
    if answer.fields and answer.fields[0].name.lower() in ("rowid", "r"):
        assert answer.fields[0].sources == []


def test_a_declared_rowid_column_wins_and_other_dialects_refuse() -> None:
    [answer] = prism_lineage.explain("SELECT rowid FROM t", {"t": {"rowid": "int"}}, dialect="sqlite").statements
    assert [s.column for s in answer.fields[0].sources] == ["t.rowid"]
    with pytest.raises(prism_lineage.PrismError):
        prism_lineage.explain("SELECT rowid FROM t", SCHEMA, dialect="postgres")
