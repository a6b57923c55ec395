"""``f(…) WITH ORDINALITY`` in FROM (field trial 77): the function's columns, then ``ordinality``.
For ``generate_series``/``range`` (sqlglot keeps the flag on the table) the column was dropped —
one field where DuckDB gives two, exact; ``unnest(…) WITH ORDINALITY AS u`` named its column
``unnest`` (DuckDB: ``u``).  DuckDB names the columns."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage

SCHEMA = {"t": {"id": "int", "n": "int", "l": "int[]"}}


@pytest.mark.parametrize("sql", [
    "SELECT * FROM generate_series(1, 3) WITH ORDINALITY AS g",
    "SELECT * FROM generate_series(1, 3) WITH ORDINALITY",
    "SELECT * FROM range(3) WITH ORDINALITY",
    "SELECT * FROM range(3) WITH ORDINALITY AS r(v, k)",
    "SELECT * FROM unnest([5, 6]) WITH ORDINALITY AS u",
    "SELECT * FROM unnest([5, 6]) WITH ORDINALITY AS u(x, k)",
    "SELECT t.id, g.* FROM t, generate_series(1, t.n) WITH ORDINALITY AS g",
    # DuckDB 2.0.1 keeps the function's name when the function reads an earlier FROM item:
    "SELECT u.* FROM t, unnest(t.l) WITH ORDINALITY AS u",
    "SELECT * FROM t, unnest([1]) WITH ORDINALITY AS u",
])
def test_with_ordinality_adds_its_column(sql: str) -> None:
    connection = duckdb.connect()
    connection.execute("CREATE TABLE t (id INT, n INT, l INT[]); INSERT INTO t VALUES (1, 2, [7])")
    names = [d[0] for d in connection.execute(sql).description]
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in answer.fields] == names


def test_the_position_depends_on_what_makes_the_rows() -> None:
    sql = "SELECT g.ordinality FROM t, generate_series(1, t.n) WITH ORDINALITY AS g"
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert ("t.n", "value") in {(s.column, s.relationship) for s in answer.fields[0].sources}
