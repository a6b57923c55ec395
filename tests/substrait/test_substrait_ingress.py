"""Ingress origins: every target lowered from a Substrait plan links back to the relation of
the plan that produced it (its path and anchor) — provenance shown by ``graph``, never lineage."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import prism_lineage
from prism_lineage.explain import explain_statements
from prism_lineage.frontends.substrait import SubstraitPlan
from prism_lineage.ir import Aggregate, Filter, Scan, walk_relations
from prism_lineage.lineage.graph import LineageGraph
from prism_lineage.lineage.graph_format import graph_model, render_dot, render_graph_text

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "substrait"
RFC = GOLDEN / "aggregate" / "measures.plan.json"


def statements(case: str = "aggregate/measures"):
    return SubstraitPlan.from_file(GOLDEN / f"{case}.plan.json").to_statements()


def origin_of(statement, target: str):
    return next(o for o in statement.ingress if target in o.targets)


def test_each_relation_links_to_the_substrait_relation_it_came_from() -> None:
    statement = statements()[0]
    aggregate = next(r for r in walk_relations(statement.root) if isinstance(r, Aggregate))
    scan = next(r for r in walk_relations(statement.root) if isinstance(r, Scan))
    assert origin_of(statement, aggregate.id).path == "relations[0].root.input"
    assert origin_of(statement, aggregate.id).kind == "AggregateRel"
    assert origin_of(statement, scan.id).path == "relations[0].root.input.aggregate.input"
    assert origin_of(statement, scan.id).kind == "ReadRel"
    # Fields and expressions too.
    for field in aggregate.fields:
        assert origin_of(statement, field.id).kind == "AggregateRel"
    for measure in aggregate.measures:
        assert origin_of(statement, measure.id).kind == "AggregateRel"
    assert all(o.protocol == "substrait" and o.file.endswith("measures.plan.json") for o in statement.ingress)


def test_ids_and_origins_name_the_relation_path() -> None:
    statement = statements()[0]
    aggregate = next(r for r in walk_relations(statement.root) if isinstance(r, Aggregate))
    assert aggregate.id == "s0.aggregate@relations[0].root.input"
    assert aggregate.origin.file.endswith("measures.plan.json") and aggregate.origin.line == 0


def test_anchor_is_kept() -> None:
    statement = statements("filter/outer_rel_reference")[0]
    filter_ = next(r for r in walk_relations(statement.root) if isinstance(r, Filter)
                   and not isinstance(r.input, Filter) and isinstance(r.input, Scan) and r.input.table == "orders")
    origin = origin_of(statement, filter_.id)
    assert (origin.kind, origin.anchor) == ("FilterRel", 7)
    graph = LineageGraph.of(statement)
    assert graph.targets[origin.id].label == "FilterRel relations[0].root.input.project.input (anchor 7)"


def test_ingress_links_are_not_lineage() -> None:
    """The answer is the same with and without the ingress links."""
    for path in sorted(GOLDEN.glob("*/*.plan.json")):
        lowered = SubstraitPlan.from_file(path).to_statements()
        bare = [dataclasses.replace(s, ingress=()) for s in lowered]
        assert explain_statements(lowered) == explain_statements(bare), path.name
        if lowered[0].root is None:
            continue
        graph = LineageGraph.of(lowered[0])
        assert {link.kind for link in graph.links} <= {"flow", "matched", "ingress"}
        upstream = graph.upstream(lowered[0].root.id)
        assert not [t for t in upstream if graph.targets[t].kind == "ingress"], path.name


def test_graph_shows_the_ingress(tmp_path: Path) -> None:
    graphs = [LineageGraph.of(s) for s in statements()]
    text = render_graph_text(graphs)
    assert "ingress (provenance from the client plan, not lineage):" in text
    assert "  AggregateRel relations[0].root.input → Aggregate [s0.aggregate@relations[0].root.input], 5 fields" in text
    model = json.loads(graph_model(graphs).model_dump_json())["statements"][0]
    ingress_targets = {t["id"] for t in model["targets"] if t["kind"] == "ingress"}
    assert "ingress:substrait:relations[0].root.input" in ingress_targets
    links = [link for link in model["links"] if link["kind"] == "ingress"]
    assert {"source": "ingress:substrait:relations[0].root.input", "target": "s0.aggregate@relations[0].root.input",
            "kind": "ingress"} in links
    dot = render_dot(graphs)
    assert '"ingress:substrait:relations[0].root.input" [label="AggregateRel relations[0].root.input", shape=note]' \
        in dot


def test_sql_statements_have_no_ingress() -> None:
    graph = prism_lineage.lineage_graphs("SELECT 1 AS x")[0]
    assert graph.statement.ingress == () and not any(link.kind == "ingress" for link in graph.links)
