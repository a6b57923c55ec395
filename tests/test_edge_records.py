"""The rules emit edges as ``EdgeFields`` tuples; a ``LineageGraph`` makes its ``Edge`` objects
only when asked (explain never asks).  Both forms must say the same thing."""

from __future__ import annotations

import dataclasses

from prism_lineage.explain import lower
from prism_lineage.lineage.edges import Edge, EdgeFields
from prism_lineage.lineage.graph import LineageGraph
from prism_lineage.lineage.resolve import EndToEnd

SQL = """
WITH t AS (SELECT a, SUM(b) AS s FROM x WHERE c > 1 GROUP BY a)
SELECT t.a, t.s, y.d FROM t LEFT JOIN y ON t.a = y.a
WHERE y.e IN (SELECT f FROM z) ORDER BY t.s DESC LIMIT 3
"""
SCHEMA = {"x": {"a": "int", "b": "int", "c": "int"}, "y": {"a": "int", "d": "text", "e": "int"}, "z": {"f": "int"}}


def test_edge_fields_are_the_edge_fields_in_order() -> None:
    fields = dataclasses.fields(Edge)
    assert EdgeFields._fields == tuple(f.name for f in fields)
    assert EdgeFields._field_defaults == {f.name: f.default for f in fields if f.default is not dataclasses.MISSING}


def test_a_graph_answers_the_same_from_its_records_and_from_its_edges() -> None:
    (statement,) = lower(SQL, SCHEMA)
    graph = LineageGraph.of(statement)
    records = list(graph._records)
    assert records and all(type(r) is EdgeFields for r in records)
    edges = graph.edges
    assert edges == [Edge(*r) for r in records] and all(type(e) is Edge for e in edges)
    outputs = [f.id for f in statement.root.fields]
    from_records = EndToEnd(records, graph.links).answer(outputs, statement.root.id)
    from_edges = EndToEnd(edges, graph.links).answer(outputs, statement.root.id)
    assert from_records == from_edges
    assert any(indirect for _, indirect in from_edges)  # the query has join, control and sort sources
    # A graph made from Edge objects (as rewrites make them) answers the same.
    assert LineageGraph(statement, edges, graph.links).end_to_end.answer(outputs, statement.root.id) == from_edges
