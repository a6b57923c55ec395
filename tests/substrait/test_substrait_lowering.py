"""How relations lower into the IR, checked on small plans against their SQL twins."""

from __future__ import annotations

import json
from pathlib import Path

import prism_lineage
from prism_lineage.frontends.substrait import SubstraitPlan
from prism_lineage.ir import CteRef, Window, walk_relations
from prism_lineage.ir.opaque import Opaque
from prism_lineage.lineage.graph import LineageGraph

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "substrait"
ORDERS = {"orders": {"order_id": "int", "customer_id": "int", "status": "varchar", "amount": "double"}}


def golden(case: str) -> dict:
    return json.loads((GOLDEN / f"{case}.plan.json").read_text(encoding="utf-8"))


def test_window_function_in_a_filter_is_qualify() -> None:
    """A FilterRel whose condition holds a window function: a Window below the filter, and the
    filter's output is its input's fields again — SQL's QUALIFY."""
    document = golden("project/window_function")
    project = document["relations"][0]["root"]["input"]["project"]
    row_number = project["expressions"][0]
    document["relations"][0]["root"] = {
        "input": {"filter": {"input": project["input"], "condition": {"scalarFunction": {
            "functionReference": 1, "arguments": [{"value": row_number}, {"value": {"literal": {"i64": "1"}}}]}}}},
        "names": ["order_id", "customer_id", "status", "amount"]}
    plan = SubstraitPlan.from_bytes(json.dumps(document))
    statement = plan.to_statements()[0]
    assert [f.name for f in statement.root.fields] == ["order_id", "customer_id", "status", "amount"]
    assert any(isinstance(r, Window) for r in walk_relations(statement.root))
    twin = prism_lineage.explain("SELECT * FROM orders QUALIFY ROW_NUMBER() OVER (PARTITION BY customer_id "
                                 "ORDER BY amount DESC) = 1", schema=ORDERS, dialect="duckdb")
    assert prism_lineage.explain(plan).statements[0].fields == twin.statements[0].fields


def test_a_shared_subtree_is_one_definition() -> None:
    statement = SubstraitPlan.from_file(GOLDEN / "reference" / "self_join.plan.json").to_statements()[0]
    references = [r for r in walk_relations(statement.root) if isinstance(r, CteRef)]
    assert len(references) == 2 and references[0].id != references[1].id
    assert references[0].definition is references[1].definition


def test_an_extension_relation_is_opaque_over_its_inputs() -> None:
    statement = SubstraitPlan.from_file(GOLDEN / "extension" / "multi.plan.json").to_statements()[0]
    opaque = next(r for r in walk_relations(statement.root) if isinstance(r, Opaque))
    assert opaque.name == "ExtensionMultiRel acme.FuzzyMatch"
    assert [f.name for f in opaque.fields] == ["key", "score"]
    edges = [e for e in LineageGraph.of(statement).edges if e.rule == "opaque"]
    # Each of the 2 output fields from each of the 4 input fields (a.k, a.v, b.k, b.v).
    assert len(edges) == 8
    assert {(e.transformation.value, e.confidence.value) for e in edges} == {("opaque", "unknown")}
    assert all(e.reason and "acme.FuzzyMatch" in e.reason for e in edges)


def test_comma_join_rule_matches_the_sql() -> None:
    plan = SubstraitPlan.from_file(GOLDEN / "filter" / "comma_join.plan.json")
    schema = {**ORDERS, "customers": {"customer_id": "int", "name": "varchar", "region": "varchar"}}
    twin = prism_lineage.explain("SELECT o.order_id, c.name FROM orders o, customers c "
                                 "WHERE o.customer_id = c.customer_id AND o.amount > 10.0", schema=schema)
    assert prism_lineage.explain(plan).statements[0].fields == twin.statements[0].fields


def test_deep_plans_are_read_from_json_and_binary() -> None:
    """Hundreds of nested relations: past protobuf's default limit of 100 nested messages."""
    document = golden("read/projection_and_filters")
    rel = document["relations"][0]["root"]["input"]
    for _ in range(300):
        rel = {"filter": {"input": rel, "condition": {"literal": {"boolean": True}}}}
    document["relations"][0]["root"]["input"] = rel
    from_json = SubstraitPlan.from_bytes(json.dumps(document))
    from_binary = SubstraitPlan.from_bytes(from_json.message.SerializeToString())
    expected = prism_lineage.explain(SubstraitPlan.from_file(GOLDEN / "read" / "projection_and_filters.plan.json"))
    assert prism_lineage.explain(from_json) == expected
    assert prism_lineage.explain(from_binary) == expected


def test_lateral_join_is_sqls_lateral_subquery() -> None:
    """The right input reads the left row through an outer reference to the lateral join's anchor."""
    schema = {**ORDERS, "returns": {"order_id": "int", "reason": "varchar", "refund": "double"}}
    plan = SubstraitPlan.from_file(GOLDEN / "lateral_join" / "per_row_aggregate.plan.json", schema=schema)
    twin = prism_lineage.explain("SELECT o.order_id, t.top FROM orders AS o, LATERAL (SELECT MAX(r.refund) AS top "
                                 "FROM returns AS r WHERE r.order_id = o.order_id) AS t", schema=schema,
                                 dialect="postgres")
    assert prism_lineage.explain(plan) == twin

