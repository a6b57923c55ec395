"""MERGE forms of DuckDB's test suite (field trials 59, 61) and the DuckDB/SQLite upsert's
unqualified columns (trial 62), the engines as oracles: every value written must come from the
source column the answer names, exactly."""

from __future__ import annotations

import sqlite3

import duckdb
import pytest

import prism_lineage

SCHEMA = {"tg": {"a": "int", "b": "int"}, "src": {"b": "int", "a": "int"}}
SETUP = ("CREATE TABLE tg (a INT, b INT); INSERT INTO tg VALUES (1, 100);"
         "CREATE TABLE src (b INT, a INT); INSERT INTO src VALUES (5, 1), (7, 2);")
# Each source value is unique, so a written value tells which source column it came from.
VALUE_OF = {("src", "b", 1): 5, ("src", "a", 1): 1, ("src", "b", 2): 7, ("src", "a", 2): 2}

MERGES = [
    "MERGE INTO tg USING src ON tg.a = src.a WHEN MATCHED THEN UPDATE WHEN NOT MATCHED THEN INSERT",
    "MERGE INTO tg USING src ON tg.a = src.a WHEN NOT MATCHED THEN INSERT BY NAME",
    "MERGE INTO tg USING src ON tg.a = src.a WHEN NOT MATCHED THEN INSERT BY POSITION",
    "MERGE INTO tg USING src USING (a) WHEN MATCHED THEN DO NOTHING WHEN NOT MATCHED THEN INSERT VALUES (a, b)",
    "MERGE INTO tg AS d USING src AS s ON s.a = d.a WHEN NOT MATCHED THEN INSERT (a, b) VALUES (a, b)",
    "MERGE INTO tg AS d USING src AS s ON s.a = d.a WHEN NOT MATCHED THEN INSERT (b, a) VALUES (a, b)",
]


@pytest.mark.parametrize("sql", MERGES)
def test_merge_writes_what_duckdb_writes(sql: str) -> None:
    connection = duckdb.connect()
    connection.execute(SETUP)
    connection.execute(sql)
    after = connection.execute("SELECT a, b FROM tg").fetchall()
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    fields = {f.name: f for f in answer.fields}
    for column, position in (("a", 0), ("b", 1)):
        values = {(s.column, s.confidence) for s in fields[column].sources if s.relationship == "value"}
        written = {row[position] for row in after} - {1, 100}  # the rows the MERGE wrote
        if not written:
            continue
        named = {s.split(".")[1] for s, _ in values if s.startswith("src.")}
        assert all(c == "exact" for _, c in values), (sql, column, values)
        expected = {c for (t, c, k), v in VALUE_OF.items() if v in written}
        assert named == expected, (sql, column, values, written)


@pytest.mark.parametrize("dialect", ["duckdb", "sqlite"])
def test_upsert_unqualified_column_is_the_existing_rows(dialect: str) -> None:
    sql = "INSERT INTO tbl VALUES (3, 5, 7) ON CONFLICT (i) DO UPDATE SET k = k + excluded.k WHERE k != 100"
    for connection in (duckdb.connect(), sqlite3.connect(":memory:")):
        connection.execute("CREATE TABLE tbl (i INT PRIMARY KEY, j INT, k INT)")
        connection.execute("INSERT INTO tbl VALUES (3, 1, 1)")
        connection.execute(sql)
        assert connection.execute("SELECT * FROM tbl").fetchall() == [(3, 1, 8)]  # 1 (existing) + 7
    schema = {"tbl": {"i": "int", "j": "int", "k": "int"}}
    [answer] = prism_lineage.explain(sql, schema, dialect=dialect).statements
    [k] = [f for f in answer.fields if f.name == "k"]
    assert ("tbl.k", "value", "expression") in {(s.column, s.relationship, s.transformation) for s in k.sources}
    with pytest.raises(prism_lineage.AmbiguousColumnError):  # PostgreSQL refuses it too
        prism_lineage.explain(sql, schema, dialect="postgres")


def test_merge_action_on_the_target_rows_only_reads_the_target() -> None:
    sql = "MERGE INTO tg AS d USING src AS s ON s.a = d.a WHEN NOT MATCHED BY SOURCE THEN UPDATE SET b = b + 1"
    connection = duckdb.connect()
    connection.execute(SETUP + "INSERT INTO tg VALUES (9, 900);")
    connection.execute(sql)
    assert connection.execute("SELECT b FROM tg WHERE a = 9").fetchall() == [(901,)]
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    [b] = [f for f in answer.fields if f.name == "b"]
    assert {(s.column, s.transformation) for s in b.sources if s.relationship == "value"} == {("tg.b", "expression")}
