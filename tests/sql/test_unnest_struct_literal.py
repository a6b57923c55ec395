"""DuckDB's UNNEST of a struct the query builds (field trial 64), DuckDB the oracle."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage

SCHEMA = {"t": {"a": "int", "b": "varchar"}}


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
