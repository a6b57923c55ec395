"""An aliased join group, ``(a JOIN b USING (k)) AS l`` (field trial 79): it was "not analysed"
(unknown); DuckDB and PostgreSQL read it as ``(SELECT * FROM a JOIN b USING (k)) AS l``: the
alias names the joined table, a USING key is one column, the names inside are hidden.  DuckDB
names the columns (a second ``k`` of an ON join is ``k_1``, ``l(p, q)`` renames by position)."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage
from prism_lineage import errors

SCHEMA = {"a": {"k": "int", "x": "int"}, "b": {"k": "int", "y": "int"}, "c": {"k": "int", "z": "int"}}


def _connection() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("CREATE TABLE a (k INT, x INT); CREATE TABLE b (k INT, y INT); CREATE TABLE c (k INT, z INT);"
                "INSERT INTO a VALUES (1, 10), (2, 20); INSERT INTO b VALUES (1, 100), (3, 300);"
                "INSERT INTO c VALUES (1, 7)")
    return con


@pytest.mark.parametrize("sql", [
    "SELECT * FROM (a JOIN b USING (k)) AS l",
    "SELECT l.k, l.x, l.y FROM (a JOIN b USING (k)) AS l",
    "SELECT * FROM (a LEFT JOIN b USING (k)) AS l",
    "SELECT l.k, y FROM (a FULL JOIN b USING (k)) AS l",
    "SELECT * FROM (a JOIN b ON a.k = b.k) AS l",
    "SELECT * FROM (a JOIN b USING (k)) AS l(p, q, r)",
    "SELECT * FROM (a JOIN b USING (k)) AS l(p)",
    "SELECT * FROM (a JOIN b USING (k)) AS l JOIN c USING (k)",
    "SELECT * FROM (a NATURAL JOIN b) AS l",
    "SELECT l.*, c.z FROM (a JOIN b USING (k)) l, c",
    "SELECT * FROM ((a JOIN b USING (k)) AS l JOIN c ON l.k = c.k)",
    # more parentheses (sqlglot's qualify_tables fixtures): refused before, "expected a query"
    "SELECT * FROM ((a JOIN b USING (k))) AS _0",
    "SELECT l.y FROM (((a JOIN b USING (k))) AS l)",
])
def test_columns_and_sources_as_duckdb_computes_them(sql: str) -> None:
    con = _connection()
    names = [d[0] for d in con.execute(sql).description]
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in answer.fields] == names
    assert not answer.uncertain
    for f in answer.fields:
        assert all(s.confidence == "exact" for s in f.sources)


def test_the_key_of_a_full_join_comes_from_both_sides() -> None:
    [answer] = prism_lineage.explain("SELECT l.k FROM (a FULL JOIN b USING (k)) AS l", SCHEMA,
                                     dialect="postgres").statements
    assert {s.column for s in answer.fields[0].sources if s.relationship == "value"} == {"a.k", "b.k"}


def test_the_names_inside_are_hidden() -> None:
    with pytest.raises(errors.PrismError):
        prism_lineage.explain("SELECT a.x FROM (a JOIN b USING (k)) AS l", SCHEMA, dialect="duckdb")


def test_postgres_refuses_a_name_the_group_has_twice() -> None:
    with pytest.raises(errors.AmbiguousColumnError):
        prism_lineage.explain("SELECT l.k FROM (a JOIN b ON a.k = b.k) AS l", SCHEMA, dialect="postgres")


def test_other_dialects_still_say_it_is_not_analysed() -> None:
    [answer] = prism_lineage.explain("SELECT l.x FROM (a JOIN b USING (k)) AS l", SCHEMA,
                                     dialect="snowflake").statements
    assert answer.uncertain
