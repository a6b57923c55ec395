"""The rows a generator makes depend on what it reads (field trial 69): an empty or NULL list
drops the row, a list of n elements repeats it n times.  Every output field — the ones passing
through included — lists the argument (control, or join under LEFT JOIN … ON TRUE).  DuckDB is the
oracle: changing ``t.l`` changes the field's values."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage

SCHEMA = {"t": {"id": "int", "a": "int", "l": "int[]"}}


def _connection() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    connection.execute("CREATE TABLE t (id INT, a INT, l INT[]); "
                       "INSERT INTO t VALUES (1, 10, [1, 2]), (2, 20, [3]), (3, 30, [])")
    return connection


def _column(connection: duckdb.DuckDBPyConnection, sql: str, name: str) -> list:
    names = [d[0] for d in connection.execute(sql).description]
    return sorted(row[names.index(name)] for row in connection.execute(sql).fetchall())


@pytest.mark.parametrize("sql", [
    "SELECT a, unnest(l) AS e FROM t",
    "SELECT t.a, x.e FROM t, unnest(t.l) AS x(e)",
    "SELECT t.a, x.e FROM t CROSS JOIN LATERAL (SELECT unnest(t.l) AS e) AS x",
    "SELECT t.a FROM t LEFT JOIN unnest(t.l) AS x(e) ON TRUE",
    "SELECT t.a, x.n FROM t, generate_series(1, len(t.l)) AS x(n)",
])
def test_a_field_passing_through_a_generator_lists_its_argument(sql: str) -> None:
    connection = _connection()
    before = _column(connection, sql, "a")
    connection.execute("UPDATE t SET l = [7] WHERE id = 1")
    assert _column(connection, sql, "a") != before  # t.l decides a's rows
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    [a] = [f for f in answer.fields if f.name == "a"]
    assert {s.column for s in a.sources if s.relationship in ("control", "join")} >= {"t.l"}, a


def test_stack_makes_as_many_rows_whatever_its_values() -> None:
    sql = "SELECT id, stack(2, a, l) AS (v) FROM t"
    [answer] = prism_lineage.explain(sql, {"t": {"id": "int", "a": "int", "l": "int"}}, dialect="spark").statements
    [id_] = [f for f in answer.fields if f.name == "id"]
    assert [(s.column, s.relationship) for s in id_.sources] == [("t.id", "value")]


def test_a_list_the_query_builds_makes_as_many_rows_as_it_spells() -> None:
    sql = "SELECT id, unnest([a, a + 1]) AS e FROM t"
    connection = _connection()
    before = _column(connection, sql, "id")
    connection.execute("UPDATE t SET a = NULL")
    assert _column(connection, sql, "id") == before  # a's values do not decide the rows
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    [id_] = [f for f in answer.fields if f.name == "id"]
    assert [(s.column, s.relationship) for s in id_.sources] == [("t.id", "value")]
