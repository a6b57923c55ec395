"""A recursive CTE whose column list names fewer columns than its anchor returns: the first ones
are renamed, the rest keep their names (DuckDB and PostgreSQL, as for any CTE).  It was an
internal error (IndexError), found by replaying DuckDB's test suite
(test/sql/subquery/lateral/test_lateral_join.test).  DuckDB is the oracle for the names."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage
from prism_lineage.errors import InvalidStatementError

SCHEMA = {"g": {"v": "int"}}


def _connection() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    connection.execute("CREATE TABLE g (v INT); INSERT INTO g VALUES (1)")
    return connection


@pytest.mark.parametrize("sql", [
    "WITH RECURSIVE s(x) AS (SELECT v, 2 AS e FROM g UNION ALL SELECT x + 1, e FROM s WHERE x < 3) SELECT * FROM s",
    "SELECT * FROM generate_series(1, 3) AS input(n), LATERAL (WITH RECURSIVE s(x) AS ((SELECT n, true AS ok) "
    "UNION ALL SELECT x - 1, ok FROM s WHERE x > 0) TABLE s) ORDER BY n, x",
])
def test_a_short_column_list_renames_the_first_columns(sql: str) -> None:
    names = [d[0] for d in _connection().execute(sql).description]
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in answer.fields] == names


def test_the_renamed_column_reads_the_anchor_and_the_recursion() -> None:
    sql = "WITH RECURSIVE s(x) AS (SELECT v, 2 AS e FROM g UNION ALL SELECT x + 1, e FROM s WHERE x < 3) SELECT x FROM s"
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    [field] = answer.fields
    assert ("g.v", "value") in {(s.column, s.relationship) for s in field.sources}


def test_more_names_than_columns_is_refused() -> None:
    # As for a CTE that is not recursive (PostgreSQL refuses it; DuckDB 2.0.1 ignores the extra
    # names): a refusal, not a guess.
    sql = "WITH RECURSIVE s(x, y, z) AS (SELECT v, 2 FROM g UNION ALL SELECT x + 1, y FROM s WHERE x < 3) SELECT * FROM s"
    with pytest.raises(InvalidStatementError, match="names 3 columns"):
        prism_lineage.explain(sql, SCHEMA, dialect="duckdb")
