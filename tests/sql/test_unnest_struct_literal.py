"""DuckDB's UNNEST of a struct the query builds (field trial 64), DuckDB the oracle."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage

SCHEMA = {"t": {"a": "int", "b": "varchar"}, "u": {"s": "struct(p int, q int)"}}


@pytest.mark.parametrize("sql", [
    "SELECT UNNEST({'x': a, 'y': b}) FROM t",
    "SELECT UNNEST({'a': 42, 'b': 88})",
    "SELECT UNNEST(struct_pack(x := a, y := b)) AS u FROM t",
    "SELECT UNNEST({'x': a, 'y': b}) AS u, b FROM t",
    "SELECT UNNEST({'x': a || 'z'}) FROM t",
])
def test_unnest_of_a_struct_literal_gives_its_fields(sql: str) -> None:
    connection = duckdb.connect()
    connection.execute("CREATE TABLE t (a VARCHAR, b VARCHAR); INSERT INTO t VALUES ('1', 'p')")
    names = [d[0] for d in connection.execute(sql).description]
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in answer.fields] == names
    for field in answer.fields:
        assert all(s.confidence == "exact" for s in field.sources), field
    assert answer.uncertain == []


@pytest.mark.parametrize("sql", [
    "SELECT UNNEST([{'a': 42, 'b': 88}, {'a': NULL, 'b': 99}], recursive := true)",
    "SELECT UNNEST([[{'a': 42, 'b': 88}], [{'a': NULL, 'b': 99}]], recursive := true)",
    "SELECT UNNEST([{'x': a, 'y': b}, {'x': 'k', 'y': a}], recursive := true) FROM t",
    "SELECT UNNEST([{'x': a, 'y': b}], max_depth := 2) AS u FROM t",
    "SELECT UNNEST([{'a': 42, 'b': {'c': 1}}], recursive := true)",
    "SELECT UNNEST([[{'a': 42, 'b': {'x': 99}}, {'a': NULL, 'b': {'x': NULL}}]], max_depth := 3)",
    "SELECT UNNEST([{'a': 1, 'b': {'a': a}}], recursive := true) FROM t",
    "SELECT UNNEST([{'a': 42, 'b': [1, 2]}], recursive := true)",  # a list inside stays a list
    "SELECT UNNEST({'a': 42, 'b': {'c': {'x': a}, 'd': 99}}, max_depth := 2) FROM t",
    "SELECT UNNEST({'a': [1, 2, 3], 'b': b}, recursive := true) FROM t",
])
def test_recursive_unnest_of_a_list_of_struct_literals_gives_their_fields(sql: str) -> None:
    connection = duckdb.connect()
    connection.execute("CREATE TABLE t (a VARCHAR, b VARCHAR); INSERT INTO t VALUES ('1', 'p')")
    names = [d[0] for d in connection.execute(sql).description]
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in answer.fields] == names
    for field in answer.fields:
        assert all(s.confidence == "exact" for s in field.sources), field
    assert answer.uncertain == []


def test_each_field_reads_the_values_spelt_for_it() -> None:
    sql = "SELECT UNNEST([{'x': a, 'y': b}, {'x': 'k', 'y': a}], recursive := true) FROM t"
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    sources = {f.name: {(s.column, s.transformation) for s in f.sources} for f in answer.fields}
    assert sources == {"x": {("t.a", "generator")}, "y": {("t.b", "generator"), ("t.a", "generator")}}


# ``UNNEST([{'a': 42, 'b': s}], recursive := true)`` of a declared struct column ``s`` is now
# read field by field (a, p, q: tests/sql/test_unnest_constructed_types.py, field trial 73).
@pytest.mark.parametrize("sql", [
    "SELECT UNNEST([{'a': 42, 'b': {'c': 1}}, {'a': 1, 'b': NULL}], recursive := true)",  # DuckDB: a, c
])
def test_a_struct_literal_not_read_field_by_field_is_said_uncertain(sql: str) -> None:
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert answer.uncertain, answer


def test_unnest_of_a_list_literal_is_a_list() -> None:
    # A list the query builds is a list, whatever its elements' types: a row per element.
    sql = "SELECT UNNEST([a, b || 'x']) AS u FROM t"
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    [field] = answer.fields
    assert {(s.column, s.confidence) for s in field.sources} == {("t.a", "exact"), ("t.b", "exact")}
    assert answer.uncertain == []
