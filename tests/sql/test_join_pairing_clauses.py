"""What decides which rows a join pairs besides ON (field trial 75): DuckDB's ``JOIN … NEAREST k BY
DISTANCE d(l, r)`` (the k right rows nearest each left row) and Snowflake's ASOF ``MATCH_CONDITION
(l.t >= r.t)``.  sqlglot keeps both on the join; they were ignored — a cross join (or the ON keys
alone), exact, missing the columns that pair the rows.  DuckDB is the oracle for NEAREST (changing
``lnums.x`` changes the pairs) and for ASOF (its ON spelling of the same match)."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage

SCHEMA = {"lnums": {"id": "int", "x": "int"}, "rnums": {"y": "int"},
          "a": {"x": "int", "t": "int", "k": "int"}, "b": {"y": "int", "t": "int", "k": "int"}}


def _joins(field) -> set[str]:
    return {s.column for s in field.sources if s.relationship == "join"}


@pytest.mark.parametrize("sql", [
    "SELECT q.id, t.y FROM lnums AS q INNER JOIN rnums AS t NEAREST 1 BY DISTANCE abs(q.x - t.y)",
    "SELECT q.id, t.y FROM lnums AS q JOIN rnums AS t NEAREST 2 BY DISTANCE abs(q.x - t.y) WHERE t.y > 0",
])
def test_nearest_pairs_rows_by_its_distance(sql: str) -> None:
    connection = duckdb.connect()
    connection.execute("CREATE TABLE lnums (id INT, x INT); INSERT INTO lnums VALUES (1, 1), (2, 10);"
                       "CREATE TABLE rnums (y INT); INSERT INTO rnums VALUES (2), (9), (20)")
    before = sorted(connection.execute(sql).fetchall())
    connection.execute("UPDATE lnums SET x = 20 WHERE id = 1")
    assert sorted(connection.execute(sql).fetchall()) != before  # lnums.x decides the pairs
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in answer.fields] == ["id", "y"]
    for field in answer.fields:
        assert {"lnums.x", "rnums.y"} <= _joins(field)
        assert all(s.confidence == "exact" for s in field.sources)


def test_snowflake_asof_match_condition_pairs_rows() -> None:
    sql = "SELECT a.x, b.y FROM a ASOF JOIN b MATCH_CONDITION (a.t >= b.t) ON a.k = b.k"
    connection = duckdb.connect()
    connection.execute("CREATE TABLE a (x INT, t INT, k INT); INSERT INTO a VALUES (1, 5, 1);"
                       "CREATE TABLE b (y INT, t INT, k INT); INSERT INTO b VALUES (10, 1, 1), (20, 4, 1)")
    duck = "SELECT a.x, b.y FROM a ASOF JOIN b ON a.k = b.k AND a.t >= b.t"
    before = connection.execute(duck).fetchall()
    connection.execute("UPDATE a SET t = 2")
    assert connection.execute(duck).fetchall() != before  # a.t decides the match
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="snowflake").statements
    for field in answer.fields:
        assert _joins(field) == {"a.k", "b.k", "a.t", "b.t"}
