"""A part read of a value computed from aggregates (field trial 74): ``{'x': MAX(a), 'y':
MAX(b)}`` is an aggregate of ``a`` and of ``b`` (the strongest hop names the way), yet its part
``.x`` has no such part in them.  It was listed as ``t.b .x aggregate exact``: a column that
does not feed ``x`` at all, exact, at a path that ``t.b`` (an integer) does not have.  Every
input of the computed value is listed, conservatively, as for a computed value read in place.
DuckDB is the oracle: changing ``t.b`` leaves ``x`` as it was."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage

SCHEMA = {"t": {"a": "int", "b": "int"}}


@pytest.mark.parametrize("sql", [
    "SELECT d.s.x FROM (SELECT CAST({'x': a, 'y': b} AS STRUCT(x INT, y INT)) AS s "
    "FROM (SELECT MAX(a) AS a, MAX(b) AS b FROM t) AS m) AS d",
    "SELECT d.s.x FROM (SELECT {'x': a, 'y': (SELECT MAX(b) FROM t)} AS s FROM t) AS d",
    "SELECT d.s.x FROM (SELECT CAST({'x': a, 'y': w} AS STRUCT(x INT, y INT)) AS s "
    "FROM (SELECT a, SUM(b) OVER () AS w FROM t) AS m) AS d",
    "SELECT e.v.x FROM (SELECT d.s AS v FROM (SELECT CAST({'x': a, 'y': b} AS STRUCT(x INT, y INT)) AS s "
    "FROM (SELECT MAX(a) AS a, MAX(b) AS b FROM t) AS m) AS d) AS e",
])
def test_a_column_feeding_another_part_is_never_an_exact_source(sql: str) -> None:
    connection = duckdb.connect()
    connection.execute("CREATE TABLE t (a INT, b INT); INSERT INTO t VALUES (1, 2), (3, 4)")
    before = connection.execute(sql).fetchall()
    connection.execute("UPDATE t SET b = b + 7")
    assert connection.execute(sql).fetchall() == before  # t.b does not feed x
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    [field] = answer.fields
    values = [s for s in field.sources if s.relationship == "value"]
    assert all(s.path is None for s in values), values  # no part of a or b is x
    assert {s.column: s.confidence for s in values}.get("t.b") in (None, "conservative")
    assert answer.uncertain


@pytest.mark.parametrize("sql", [
    "SELECT d.i.sku FROM (SELECT unnest(o.items) AS i FROM orders AS o) AS d",
    "SELECT d.v.sku FROM (SELECT MAX(i) AS v FROM (SELECT unnest(o.items) AS i FROM orders AS o) AS x) AS d",
])
def test_a_part_of_a_generated_or_aggregated_value_keeps_its_path(sql: str) -> None:
    # An element of a list, or the max of such elements, holds the element's parts: exact.
    schema = {"orders": {"order_id": "int", "items": "struct(sku varchar, qty int)[]"}}
    [answer] = prism_lineage.explain(sql, schema, dialect="duckdb").statements
    [field] = answer.fields
    assert [(s.column, s.path, s.confidence) for s in field.sources if s.relationship == "value"] == [
        ("orders.items", "items[].sku", "exact")]
