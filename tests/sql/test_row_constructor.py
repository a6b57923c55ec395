"""``ROW(a, b)`` is the row ``(a, b)`` in DuckDB and Postgres.  ``ROW(0, 0) < ANY (…)`` was refused
("Expecting >": sqlglot reads ``ROW(…) <`` as the start of a parameterized type), and ``ROW(a, 0) = …``
was an unknown function (every argument, conservative).  DuckDB is the oracle for the names and the
values: changing a column the answer lists changes the result."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage

SCHEMA = {"t": {"id": "int", "a": "int"}, "u": {"d": "int"}}


def _connection() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    connection.execute("CREATE TABLE t (id INT, a INT); INSERT INTO t VALUES (1, 10), (2, 20);"
                       "CREATE TABLE u (d INT); INSERT INTO u VALUES (10)")
    return connection


@pytest.mark.parametrize("sql, sources", [
    ("SELECT ROW(0, 0) < ANY (SELECT id, a FROM t) AS x", {"t.a", "t.id"}),
    ("SELECT ROW(a, 0) = (1, 1) AS x FROM t", {"t.a"}),
    ("SELECT ROW(a, 0) < ROW(id, 1) AS x FROM t", {"t.a", "t.id"}),
    ("SELECT ROW(a, 0) <= ALL (SELECT d, 1 FROM u) AS x FROM t", {"t.a", "u.d"}),
])
def test_a_row_constructor_is_a_row_of_its_values(sql: str, sources: set[str]) -> None:
    connection = _connection()
    names = [d[0] for d in connection.execute(sql).description]
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in answer.fields] == names
    [field] = answer.fields
    assert {s.column for s in field.sources} == sources
    assert all(s.confidence == "exact" for s in field.sources)
    assert answer.uncertain == []


def test_a_row_filter_reads_both_sides_as_control() -> None:
    sql = "SELECT id FROM t WHERE ROW(a, id) IN (SELECT d, 1 FROM u)"
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    [field] = answer.fields
    assert {(s.column, s.relationship) for s in field.sources} == {
        ("t.id", "value"), ("t.a", "control"), ("t.id", "control"), ("u.d", "control")}


def test_postgres_reads_row_before_less_than() -> None:
    sql = "SELECT ROW(a, id) < ROW(1, 2) AS x FROM t"
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="postgres").statements
    assert {(s.column, s.confidence) for s in answer.fields[0].sources} == {("t.a", "exact"), ("t.id", "exact")}


def test_a_genuine_type_missing_its_bracket_is_still_a_parse_error() -> None:
    with pytest.raises(prism_lineage.errors.PrismError, match="parse"):
        prism_lineage.explain("SELECT CAST(x AS STRUCT(a INT) < 1) FROM t", SCHEMA, dialect="duckdb")
