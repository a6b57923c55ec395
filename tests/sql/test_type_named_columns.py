"""A column named like a nested type (``range``, ``map``, ``list``, ``array``, ``struct`` …)
followed by ``<`` is a column compared, not a parameterized type (field trial 66).  DuckDB runs
every query first: its result columns are the fields' names."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage
from prism_lineage.errors import ParseError

SCHEMA = {"t": {"a": "int", "range": "int", "map": "int", "list": "int", "struct": "int"}}


def _duckdb() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    connection.execute('CREATE TABLE t (a INT, "range" INT, "map" INT, "list" INT, "struct" INT); '
                       "INSERT INTO t VALUES (1, 2, 3, 4, 4), (7, 9, 9, 9, 9)")
    return connection


def _sources(field) -> set[tuple[str, str, str, str]]:
    return {(s.column, s.relationship, s.transformation, s.confidence) for s in field.sources}


@pytest.mark.parametrize("column", ["range", "map", "list", "struct"])
def test_a_type_named_column_compared_with_less_than_is_a_filter(column: str) -> None:
    sql = f"SELECT a FROM t WHERE {column} < 5"
    assert _duckdb().execute(sql).fetchall() == [(1,)]
    for dialect in ("duckdb", "postgres", "snowflake", "bigquery"):
        [answer] = prism_lineage.explain(sql, SCHEMA, dialect=dialect).statements
        [field] = answer.fields
        assert _sources(field) == {("t.a", "value", "identity", "exact"),
                                   (f"t.{column}", "control", "filter", "exact")}, dialect


def test_several_type_named_columns_in_one_statement() -> None:
    sql = ("SELECT CASE WHEN range < 3 THEN a END AS x, map<list AS y FROM t "
           "WHERE list < 5 AND struct < 6 OR range<=1")
    names = [d[0] for d in _duckdb().execute(sql).description]
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in answer.fields] == names == ["x", "y"]
    assert {s.column for s in answer.fields[1].sources if s.relationship == "value"} == {"t.map", "t.list"}
    controls = {s.column for s in answer.fields[0].sources if s.relationship == "control"}
    assert {"t.list", "t.struct", "t.range"} <= controls


def test_duckdb_range_function_column() -> None:
    sql = "SELECT range FROM range(3) WHERE range < 2"
    assert duckdb.connect().execute(sql).fetchall() == [(0,), (1,)]
    [answer] = prism_lineage.explain(sql, dialect="duckdb").statements
    assert [f.name for f in answer.fields] == ["range"]


def test_a_list_of_comparisons_is_not_read_as_a_type() -> None:
    # ``list<a, struct>a``: two comparisons, as DuckDB reads it.
    sql = "SELECT list<a AS p, struct>a AS q FROM t"
    assert _duckdb().execute(sql).fetchall() == [(False, True), (False, True)]
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in answer.fields] == ["p", "q"]
    assert {s.column for s in answer.fields[0].sources} == {"t.list", "t.a"}
    assert {s.column for s in answer.fields[1].sources} == {"t.struct", "t.a"}


@pytest.mark.parametrize("sql", [
    "SELECT CAST(a AS MAP<VARCHAR, INT>) AS m FROM t",
    "SELECT CAST(a AS STRUCT<x INT>) AS s FROM t",
    "SELECT CAST(a AS ARRAY<INT>) AS l FROM t WHERE range < 5",
])
def test_real_parameterized_types_stay_types(sql: str) -> None:
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="bigquery" if "STRUCT" in sql else "spark").statements
    assert "t.a" in {s.column for s in answer.fields[0].sources}


def test_a_type_missing_its_closing_angle_is_still_a_parse_error() -> None:
    with pytest.raises(ParseError, match="Expecting >"):
        prism_lineage.explain("SELECT CAST(a AS ARRAY<INT) FROM t", SCHEMA, dialect="spark")
