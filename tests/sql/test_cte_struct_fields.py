"""A field of a struct built in a CTE, read later (field trial 80): ``WITH c AS (SELECT {'x': 1,
'y': b} AS a FROM t) SELECT a.x FROM c`` listed every input of the struct, conservative, where
the same struct built in a derived table gives the field's own value, exact (specs/nested.md 5a).
Now both agree: each query below explains the same through a CTE as through a derived table,
and DuckDB runs both (the engine oracle checks the exact sources' values)."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage
from corpora.engine_oracle import check

SCHEMA = {"t": {"a": "int", "b": "int", "c": "varchar"}}

BODIES = [
    ("SELECT {'x': 1, 'y': b} AS s FROM t", "SELECT q.s.x, q.s.y FROM {q}"),
    ("SELECT {'x': a, 'y': b} AS s, c FROM t", "SELECT q.s.y, c FROM {q}"),
    ("SELECT {'p': {'r': a + 1}, 'y': b} AS s FROM t", "SELECT q.s.p.r, q.s.p FROM {q}"),
    ("SELECT {'x': max(a), 'y': b} AS s FROM t GROUP BY b", "SELECT q.s.x, q.s.y FROM {q}"),
    ("SELECT {'x': a, 'y': b} AS s FROM t", "SELECT * FROM {q}"),
    ("SELECT {'x': a, 'y': b} AS s FROM t", "SELECT q.s.x, r.s.y FROM {q}, {r} WHERE q.s.x = r.s.x"),
]


def _sources(sql: str):
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    return [(f.name, sorted((s.column, s.relationship, s.transformation, s.confidence, s.path or "")
                            for s in f.sources)) for f in answer.fields]


@pytest.mark.parametrize(("body", "outer"), BODIES)
def test_a_cte_reads_like_a_derived_table(body: str, outer: str) -> None:
    derived = outer.replace("{q}", f"({body}) AS q").replace("{r}", f"({body}) AS r")
    cte = f"WITH q AS ({body}) " + outer.replace("{q}", "q").replace("{r}", "q AS r")
    assert _sources(cte) == _sources(derived)
    con = duckdb.connect()
    con.execute("CREATE TABLE t (a INT, b INT, c VARCHAR); INSERT INTO t VALUES (1, 2, 'x'), (3, 4, 'y')")
    verdict = check(con, cte)
    assert verdict.refused is None and not verdict.problems, verdict


def test_the_field_read_is_exact() -> None:
    [answer] = prism_lineage.explain("WITH c AS (SELECT {'x': 1, 'y': b} AS a FROM t) SELECT a.x, a.y FROM c",
                                     SCHEMA, dialect="duckdb").statements
    x, y = answer.fields
    assert not x.sources and not answer.uncertain
    assert [(s.column, s.transformation, s.confidence) for s in y.sources] == [("t.b", "identity", "exact")]
