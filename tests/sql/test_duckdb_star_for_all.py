"""DuckDB's ``GROUP BY *`` and ``ORDER BY *`` are ``GROUP BY ALL`` / ``ORDER BY ALL`` spelt with a
star (DuckDB's test/sql/aggregate/group/group_by_all.test, "we can also use the star syntax").
They were refused ("'*' is only allowed in a select list …").  The answer is the ALL spelling's,
and DuckDB's results agree."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage

SCHEMA = {"t": {"a": "int", "b": "varchar", "c": "int"}, "u": {"id": "int"}}


def _connection() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    connection.execute("CREATE TABLE t (a INT, b VARCHAR, c INT); INSERT INTO t VALUES (1, 'x', 1), (2, 'x', 2), "
                       "(3, 'y', 2); CREATE TABLE u (id INT); INSERT INTO u VALUES (5)")
    return connection


@pytest.mark.parametrize("star, spelled", [
    ("SELECT b, SUM(a) AS s FROM t GROUP BY *", "SELECT b, SUM(a) AS s FROM t GROUP BY ALL"),
    ("SELECT b || c AS k, SUM(a) AS s FROM t GROUP BY * ORDER BY *",
     "SELECT b || c AS k, SUM(a) AS s FROM t GROUP BY ALL ORDER BY ALL"),
    ("SELECT b, a FROM t GROUP BY * ORDER BY * DESC LIMIT 2",
     "SELECT b, a FROM t GROUP BY ALL ORDER BY ALL DESC LIMIT 2"),
    ("SELECT a FROM t UNION SELECT id FROM u ORDER BY * LIMIT 1",
     "SELECT a FROM t UNION SELECT id FROM u ORDER BY ALL LIMIT 1"),
    ("SELECT * FROM t GROUP BY *", "SELECT * FROM t GROUP BY ALL"),
])
def test_a_lone_star_is_all(star: str, spelled: str) -> None:
    connection = _connection()
    assert sorted(connection.execute(star).fetchall()) == sorted(connection.execute(spelled).fetchall())
    [by_star] = prism_lineage.explain(star, SCHEMA, dialect="duckdb").statements
    [by_all] = prism_lineage.explain(spelled, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in by_star.fields] == [d[0] for d in connection.execute(star).description]
    assert [f.sources for f in by_star.fields] == [f.sources for f in by_all.fields]
    assert by_star.uncertain == by_all.uncertain == []


@pytest.mark.parametrize("sql", [
    "SELECT b, SUM(a) FROM t GROUP BY b, *",
    "SELECT * FROM t GROUP BY * + 42",
])
def test_a_star_among_keys_is_refused_as_duckdb_does(sql: str) -> None:
    with pytest.raises(duckdb.Error):
        _connection().execute(sql)
    with pytest.raises(prism_lineage.errors.PrismError):
        prism_lineage.explain(sql, SCHEMA, dialect="duckdb")


def test_other_dialects_keep_refusing_a_star_key() -> None:
    with pytest.raises(prism_lineage.errors.PrismError):
        prism_lineage.explain("SELECT b, SUM(a) AS s FROM t GROUP BY *", SCHEMA, dialect="postgres")
