"""DuckDB's dot call ``x.f(args)`` is ``f(x, args)`` (field trial 70).  sqlglot reads ``f`` as an
anonymous function without ``x``: ``SELECT b.upper() FROM t`` answered "no column sources", exact.
DuckDB is the oracle: the query runs, and changing the column changes the field."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage

SCHEMA = {"t": {"id": "int", "a": "int", "b": "varchar", "l": "int[]"}}


def _connection() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    connection.execute("CREATE TABLE t (id INT, a INT, b VARCHAR, l INT[]); "
                       "INSERT INTO t VALUES (1, -10, 'x', [1, 2]), (2, 20, 'y', [3])")
    return connection


@pytest.mark.parametrize("sql, column", [
    ("SELECT b.upper() AS u FROM t", "t.b"),
    ("SELECT t.b.upper() AS u FROM t", "t.b"),
    ("SELECT (b).upper() AS u FROM t", "t.b"),
    ("SELECT b.upper().lower() AS u FROM t", "t.b"),
    ("SELECT b.concat('!') AS u FROM t", "t.b"),
    ("SELECT a.abs() AS u FROM t", "t.a"),
    ("SELECT l.list_transform(lambda x: x + id) AS u FROM t", "t.l"),
    ("SELECT l.list_transform(lambda x: x + id) AS u FROM t", "t.id"),
    ("SELECT list(a ORDER BY id).list_transform(lambda x: x + 10) AS u FROM t", "t.a"),
])
def test_the_value_before_the_dot_is_the_first_argument(sql: str, column: str) -> None:
    connection = _connection()
    before = connection.execute(sql).fetchall()
    name = column.split(".")[1]
    changed = {"a": "a + 1", "b": "b || 'z'", "l": "[9]", "id": "id + 5"}[name]
    connection.execute(f"UPDATE t SET {name} = {changed}")
    assert connection.execute(sql).fetchall() != before  # the column feeds the result
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    [field] = answer.fields
    assert column in {s.column for s in field.sources if s.relationship == "value"}, field


def test_a_qualified_function_name_stays_one() -> None:
    # ``main.abs(a)``: ``main`` names no column, so it is the function's schema.
    [answer] = prism_lineage.explain("SELECT main.abs(a) AS u FROM t", SCHEMA, dialect="duckdb").statements
    assert [s.column for s in answer.fields[0].sources] == ["t.a"]


def test_a_dot_call_on_an_earlier_select_items_alias() -> None:
    # DuckDB lets later items use an earlier item's alias: ``ti.replace(…)`` is replace(ti, …).
    sql = "SELECT b.trim('><') AS ti, ti.replace('%', '') AS oa, oa.lower() AS lo FROM t"
    connection = _connection()
    before = connection.execute(sql).fetchall()
    connection.execute("UPDATE t SET b = b || 'z'")
    assert connection.execute(sql).fetchall() != before
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [[s.column for s in f.sources] for f in answer.fields] == [["t.b"], ["t.b"], ["t.b"]]


def test_a_name_that_is_no_value_is_refused_not_read_as_a_constant() -> None:
    # ``myschema.f(b)``: a user schema's function, or a dot call on an unknown name — refused.
    with pytest.raises(prism_lineage.errors.UnknownColumnError):
        prism_lineage.explain("SELECT myschema.f(b) AS u FROM t", SCHEMA, dialect="duckdb")
