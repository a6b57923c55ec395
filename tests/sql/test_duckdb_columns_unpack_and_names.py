"""DuckDB's COLUMNS in two spellings read wrong (field trial 76), DuckDB naming the columns:
- ``MIN(COLUMNS(*)) AS "min_\\0"``: with no regex DuckDB still puts the column's name for ``\\0``
  (min_i, min_j); every column was named ``min_\\0``, exact.
- ``[UNPACK(COLUMNS(*)::VARCHAR)]``: UNPACK spreads the expression, once per column, into the list
  or call around it — one select item; it was one item per column (conservative: "unpack is not
  in the function registry")."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage

SCHEMA = {"t": {"a": "int", "b": "int"}}


def _connection() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    connection.execute("CREATE TABLE t (a INT, b INT); INSERT INTO t VALUES (1, 2)")
    return connection


@pytest.mark.parametrize("sql", [
    'SELECT MIN(COLUMNS(*)) AS "min_\\0" FROM t',
    'SELECT MIN(COLUMNS([\'a\'])) AS "min_\\0", MAX(COLUMNS(*)) AS "\\0_max" FROM t',
    'SELECT min_a, max_b FROM (SELECT MIN(COLUMNS(*)) AS "min_\\0", MAX(COLUMNS(*)) AS "max_\\0" FROM t)',
])
def test_a_backslash_zero_alias_names_each_column(sql: str) -> None:
    names = [d[0] for d in _connection().execute(sql).description]
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in answer.fields] == names
    for field, column in zip(answer.fields, names):
        assert [s.column for s in field.sources] == [f"t.{column[-1] if column.startswith('m') else column[0]}"]


@pytest.mark.parametrize("sql, sources", [
    ("SELECT [UNPACK(COLUMNS(*)::VARCHAR)] AS l FROM t", {"t.a", "t.b"}),
    ("SELECT [(UNPACK(a + COLUMNS(['a', 'b'])))] AS l FROM t", {"t.a", "t.b"}),
    ("SELECT list_value(UNPACK(COLUMNS(['b']))) AS l, COLUMNS(*) FROM t", {"t.b"}),
])
def test_unpack_spreads_into_the_list_around_it(sql: str, sources: set[str]) -> None:
    connection = _connection()
    names = [d[0] for d in connection.execute(sql).description]
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in answer.fields] == names
    assert {s.column for s in answer.fields[0].sources} == sources
    assert all(s.confidence == "exact" for f in answer.fields for s in f.sources)
    assert answer.uncertain == []
