"""A CTE inside a subquery reads the outer query's columns as the subquery itself does (field
trial 60): the answer equals that of the same query with the CTE written inline.  DuckDB runs
every query (the oracle that they are valid and give the same rows)."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage

SCHEMA = {"g": {"x": "int"}, "u": {"a": "int", "k": "int"}}
PAIRS = [
    ("SELECT (WITH c AS (SELECT u.a FROM u WHERE u.k = g.x) SELECT max(a) FROM c) AS m FROM g",
     "SELECT (SELECT max(a) FROM (SELECT u.a FROM u WHERE u.k = g.x) AS c) AS m FROM g"),
    ("SELECT g.x FROM g WHERE EXISTS (WITH c AS (SELECT 1 AS one FROM u WHERE u.k = g.x) SELECT 1 FROM c)",
     "SELECT g.x FROM g WHERE EXISTS (SELECT 1 FROM (SELECT 1 AS one FROM u WHERE u.k = g.x) AS c)"),
    ("SELECT g.x, t.y FROM g, LATERAL (WITH c AS (SELECT u.a FROM u WHERE u.k = g.x) SELECT a AS y FROM c) AS t",
     "SELECT g.x, t.y FROM g, LATERAL (SELECT a AS y FROM (SELECT u.a FROM u WHERE u.k = g.x) AS c) AS t"),
]


def _answer(sql: str, dialect: str):
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect=dialect).statements
    return [(f.name, sorted((s.column, s.relationship, s.transformation, s.confidence) for s in f.sources))
            for f in statement.fields]


@pytest.mark.parametrize("dialect", ["postgres", "duckdb"])
@pytest.mark.parametrize("with_cte, inline", PAIRS)
def test_a_correlated_cte_answers_as_the_inline_subquery(dialect: str, with_cte: str, inline: str) -> None:
    connection = duckdb.connect()
    connection.execute("CREATE TABLE g (x INT); INSERT INTO g VALUES (1), (2);"
                       "CREATE TABLE u (a INT, k INT); INSERT INTO u VALUES (10, 1), (20, 2)")
    assert sorted(connection.execute(with_cte).fetchall()) == sorted(connection.execute(inline).fetchall())
    assert _answer(with_cte, dialect) == _answer(inline, dialect)


def test_a_recursive_cte_in_lateral_reads_the_outer_row() -> None:
    sql = ("SELECT g.x, t.y FROM g, LATERAL (WITH RECURSIVE t(y) AS (SELECT g.x UNION ALL SELECT y + 1 FROM t "
           "WHERE y < 3) SELECT * FROM t) AS t")
    answer = dict(_answer(sql, "postgres"))
    assert ("g.x", "value", "expression", "exact") in answer["y"]
