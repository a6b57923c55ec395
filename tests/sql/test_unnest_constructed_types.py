"""DuckDB's unnest reads what a struct or list the query builds holds, wherever it goes (field
trial 73): a struct built in a derived table or a VALUES list unnests into a column per field,
a recursive unnest of a list the query builds counts the lengths of the lists it holds, and a
generator read not exactly says so even when nothing it reads reaches a base column.  DuckDB is
the oracle (column names; the values that change when a base column changes)."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage

SCHEMA = {"t": {"id": "int", "a": "int", "b": "varchar", "l": "int[]", "s": "struct(p int, q int[])"}}


def _connection() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    connection.execute("CREATE TABLE t (id INT, a INT, b VARCHAR, l INT[], s STRUCT(p INT, q INT[])); "
                       "INSERT INTO t VALUES (1, 10, 'x', [1, 2], {'p': 5, 'q': [7]}), "
                       "(2, 20, 'y', [3], {'p': 6, 'q': []}), (3, 30, 'z', [], {'p': 7, 'q': [8, 9]})")
    return connection


@pytest.mark.parametrize("sql", [
    "SELECT UNNEST(a) FROM (VALUES ({'a': 42, 'b': 88})) v(a)",
    "SELECT UNNEST(v.a) AS u FROM (VALUES ({'a': 42, 'b': 88}), ({'a': 1, 'b': 2})) v(a)",
    "SELECT UNNEST(a) FROM (SELECT {'a': 42, 'B': 'k'} AS a) v",
    "SELECT UNNEST(a) FROM (SELECT {'a': id, 'b': b} AS a FROM t) v",
    "SELECT UNNEST(a) FROM (SELECT {'a': id, 'b': l} AS a FROM t) v",
    "SELECT UNNEST(a, recursive := true) FROM (SELECT {'a': id, 'b': l} AS a FROM t) v",
    "SELECT UNNEST(a, recursive := true) FROM (SELECT {'a': id, 'b': s} AS a FROM t) v",
    "SELECT UNNEST(a, max_depth := 1) FROM (SELECT {'a': id, 'b': s} AS a FROM t) v",
    "SELECT UNNEST(a) FROM (SELECT {'x': NULL, 'y': b} AS a FROM t) c",
    "SELECT UNNEST(s, recursive := true) FROM t",
    "SELECT UNNEST([s, s], recursive := true) FROM t",
    "SELECT UNNEST([{'a': 42, 'b': s}], recursive := true) FROM t",
])
def test_unnest_of_a_built_struct_names_its_fields(sql: str) -> None:
    names = [d[0] for d in _connection().execute(sql).description]
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in answer.fields] == names
    assert answer.uncertain == []
    for field in answer.fields:
        assert all(s.confidence == "exact" for s in field.sources), field


def test_unnest_of_a_struct_built_in_a_cte_names_its_fields() -> None:
    # A field of a struct built in a CTE is read conservatively (every input of the struct).
    sql = "WITH c AS (SELECT {'x': NULL, 'y': b} AS a FROM t) SELECT UNNEST(a) FROM c"
    names = [d[0] for d in _connection().execute(sql).description]
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in answer.fields] == names == ["x", "y"]


def test_each_field_of_a_built_struct_reads_its_own_value() -> None:
    sql = "SELECT UNNEST(a) FROM (SELECT {'x': id, 'y': b} AS a FROM t) v"
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert {f.name: sorted(s.column for s in f.sources if s.relationship == "value") for f in answer.fields} \
        == {"x": ["t.id"], "y": ["t.b"]}


@pytest.mark.parametrize("sql, changed", [
    ("SELECT id, unnest([l, l], recursive := true) AS u FROM t", "l = [9, 9, 9]"),
    ("SELECT id, unnest([l, [a]], recursive := true) AS u FROM t", "l = [9, 9, 9]"),
    ("SELECT id, unnest([l, [a]], max_depth := 2) AS u FROM t", "l = NULL"),
    ("SELECT id, unnest([[l], [[a]]], recursive := true) AS u FROM t", "l = []"),
])
def test_recursive_unnest_counts_the_lists_a_built_list_holds(sql: str, changed: str) -> None:
    connection = _connection()
    before = sorted(connection.execute(f"SELECT id FROM ({sql})").fetchall())
    connection.execute(f"UPDATE t SET {changed}")
    assert sorted(connection.execute(f"SELECT id FROM ({sql})").fetchall()) != before  # t.l decides the rows
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    id_field = next(f for f in answer.fields if f.name == "id")
    assert ("t.l", "control") in {(s.column, s.relationship) for s in id_field.sources}


@pytest.mark.parametrize("sql", [
    "SELECT id, unnest([l, [a]]) AS u FROM t",
    "SELECT id, unnest([[a, a], [a]], recursive := true) AS u FROM t",
])
def test_a_built_list_of_spelled_length_decides_no_rows(sql: str) -> None:
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    id_field = next(f for f in answer.fields if f.name == "id")
    assert [(s.column, s.relationship) for s in id_field.sources] == [("t.id", "value")]


def test_lists_of_unknown_depth_are_counted_not_exactly() -> None:
    # ``x`` is not declared: a list there would be flattened too.
    sql = "SELECT id, unnest([x, [a]], recursive := true) AS u FROM t, w"
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    id_field = next(f for f in answer.fields if f.name == "id")
    control = {(s.column, s.confidence) for s in id_field.sources if s.relationship == "control"}
    assert ("w.x", "conservative") in control
    assert answer.uncertain


@pytest.mark.parametrize("sql", [
    "SELECT UNNEST(a) FROM (VALUES (NULL)) v(a)",
    "SELECT UNNEST(a) FROM (SELECT my_udf() AS a) v",
])
def test_a_generator_read_not_exactly_says_so_when_it_reads_no_base_column(sql: str) -> None:
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [u.reason for u in answer.uncertain if "type of a is not declared" in u.reason]
