"""An aggregate in a subquery that reads only the enclosing query's columns is an aggregate of
the enclosing query (SQL's rule; DuckDB's test/sql/subquery/exists/test_correlated_exists.test):
``HAVING EXISTS (SELECT … WHERE d > MIN(t.a))``.  It was refused ("aggregate function MIN is not
allowed here").  Where the enclosing query is grouped, its value depends on those columns as an
aggregate; DuckDB is the oracle (changing ``t.a`` changes the result, the answer lists it)."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage

SCHEMA = {"t": {"id": "int", "a": "int", "b": "varchar"}, "u": {"d": "int"}}


def _connection() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    connection.execute("CREATE TABLE t (id INT, a INT, b VARCHAR); "
                       "INSERT INTO t VALUES (1, 10, 'x'), (2, 20, 'x'), (3, 30, 'y');"
                       "CREATE TABLE u (d INT); INSERT INTO u VALUES (15), (25)")
    return connection


@pytest.mark.parametrize("sql, field, column, change", [
    ("SELECT id, SUM(a) AS s FROM t GROUP BY id HAVING EXISTS (SELECT d FROM u WHERE d > MIN(t.a))", "id", "t.a",
     "a = a + 100 WHERE id = 1"),
    ("SELECT b, (SELECT MIN(d) FROM u WHERE d > MIN(t.a)) AS x FROM t GROUP BY b", "x", "t.a",
     "a = a + 100 WHERE id = 1"),
    ("SELECT MIN(id) + 30 > ANY (SELECT d FROM u WHERE d > MAX(i1.a)) AS x FROM t AS i1", "x", "t.a", "a = 5"),
    ("SELECT b, (SELECT COUNT(*) FROM u WHERE d < SUM(t.a) FILTER (WHERE t.id > 1)) AS x FROM t GROUP BY b",
     "x", "t.a", "a = a + 100 WHERE id = 2"),
])
def test_an_outer_aggregate_reads_the_outer_columns(sql: str, field: str, column: str, change: str) -> None:
    connection = _connection()
    before = sorted(map(repr, connection.execute(sql).fetchall()))
    connection.execute(f"UPDATE t SET {change}")
    assert sorted(map(repr, connection.execute(sql).fetchall())) != before  # t.a decides the result
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in answer.fields] == [d[0] for d in connection.execute(sql).description]
    sources = next(f for f in answer.fields if f.name == field).sources
    assert column in {s.column for s in sources}
    assert all(s.confidence == "exact" for s in sources)
    assert answer.uncertain == []


@pytest.mark.parametrize("sql", [
    "SELECT id FROM t WHERE EXISTS (SELECT d FROM u WHERE d > MIN(t.a))",  # DuckDB: not in WHERE
    "SELECT EXISTS (SELECT d FROM u WHERE d > MIN(t.a)) AS x FROM t",  # would make the outer query grouped
])
def test_an_outer_aggregate_where_the_outer_query_cannot_hold_it_is_refused_with_the_reason(sql: str) -> None:
    with pytest.raises(prism_lineage.errors.PrismError, match="enclosing query's columns"):
        prism_lineage.explain(sql, SCHEMA, dialect="duckdb")


def test_an_aggregate_of_the_subquery_own_columns_is_still_refused_in_its_where() -> None:
    with pytest.raises(prism_lineage.errors.PrismError, match="not allowed here"):
        prism_lineage.explain("SELECT b, (SELECT 1 FROM u WHERE d > MIN(u.d)) AS x FROM t GROUP BY b", SCHEMA,
                              dialect="duckdb")
