"""DuckDB binds a FROM-clause subquery that names earlier FROM items as LATERAL without the
keyword (field trial 60, q3).  The oracle: DuckDB runs each query and its LATERAL twin with the
same rows, and the answer is the twin's; PostgreSQL refuses the reference, and so do we there."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage
from prism_lineage.errors import UnknownColumnError, UnknownTableError

SCHEMA = {"g": {"x": "int"}, "h": {"x": "int", "z": "int"}}


def _connection() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    connection.execute("CREATE TABLE g (x INT); INSERT INTO g VALUES (1), (2);"
                       "CREATE TABLE h (x INT, z INT); INSERT INTO h VALUES (5, 6)")
    return connection


def _answer(sql: str, dialect: str = "duckdb"):
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect=dialect).statements
    return [(f.name, sorted((s.column, s.relationship, s.transformation, s.confidence) for s in f.sources))
            for f in statement.fields]


PAIRS = [
    ("SELECT g.x, t.y FROM g, (SELECT g.x + 1 AS y) t",
     "SELECT g.x, t.y FROM g, LATERAL (SELECT g.x + 1 AS y) t"),
    ("SELECT * FROM g, (SELECT x + 1 AS y) t",
     "SELECT * FROM g, LATERAL (SELECT x + 1 AS y) t"),
    ("SELECT * FROM g LEFT JOIN (SELECT g.x * 2 AS y) t ON true",
     "SELECT * FROM g LEFT JOIN LATERAL (SELECT g.x * 2 AS y) t ON true"),
    ("SELECT g.x, t.z FROM g, (SELECT h.z FROM h WHERE h.x > g.x) t",
     "SELECT g.x, t.z FROM g, LATERAL (SELECT h.z FROM h WHERE h.x > g.x) t"),
    ("SELECT (SELECT max(y) FROM h, (SELECT g.x + h.z AS y) t) AS m FROM g",
     "SELECT (SELECT max(y) FROM h, LATERAL (SELECT g.x + h.z AS y) t) AS m FROM g"),
]


@pytest.mark.parametrize("implicit, explicit", PAIRS)
def test_a_derived_table_reading_earlier_items_is_lateral_in_duckdb(implicit: str, explicit: str) -> None:
    connection = _connection()
    rows = sorted(connection.execute(implicit).fetchall())
    assert rows == sorted(connection.execute(explicit).fetchall())
    assert _answer(implicit) == _answer(explicit)


def test_a_name_inside_the_derived_table_is_its_own_first() -> None:
    # DuckDB: ``x`` is h.x (the subquery's own FROM), not g.x of the item before it.
    sql = "SELECT * FROM g, (SELECT x + 1 AS y FROM h) t"
    assert sorted(_connection().execute(sql).fetchall()) == [(1, 6), (2, 6)]
    assert dict(_answer(sql))["y"] == [("h.x", "value", "expression", "exact")]


def test_a_name_two_earlier_items_hold_is_ambiguous() -> None:
    sql = "SELECT * FROM g, h, (SELECT x AS y) t"
    with pytest.raises(duckdb.BinderException):
        _connection().execute(sql)
    with pytest.raises(Exception, match="ambiguous column 'x'"):
        _answer(sql)


@pytest.mark.parametrize("sql", [
    "SELECT * FROM (SELECT g.x AS y) t, g",  # a later item is not seen (DuckDB refuses too)
])
def test_later_items_are_not_seen(sql: str) -> None:
    with pytest.raises(duckdb.BinderException):
        _connection().execute(sql)
    with pytest.raises((UnknownTableError, UnknownColumnError)):
        _answer(sql)


def test_postgres_needs_the_lateral_keyword() -> None:
    with pytest.raises((UnknownTableError, UnknownColumnError)):
        _answer("SELECT g.x, t.y FROM g, (SELECT g.x + 1 AS y) t", "postgres")
