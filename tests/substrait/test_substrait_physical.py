"""Physical relations — HashJoinRel, MergeJoinRel, NestedLoopJoinRel, ExchangeRel, TopNRel —
are lowered into the logical operators they implement, so each golden plan of
``tests/golden/substrait/{hash_join,merge_join,nested_loop_join,exchange,top_n}`` explains
exactly like its SQL twin (the goldens' answers are checked by hand; the twins check them again
through the SQL frontend).  Also: binary plans (the physical joins number their join types
differently from JoinRel), ingress origins, and bad plans."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from google.protobuf import json_format

import prism_lineage
from prism_lineage.frontends.substrait import InvalidPlanError, SubstraitPlan
from prism_lineage.frontends.substrait.compat import plan_schema
from prism_lineage.ir import Join, JoinKind, Limit, Sort, walk_relations

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "substrait"
PHYSICAL = ("hash_join", "merge_join", "nested_loop_join", "exchange", "top_n")
SCHEMA = {
    "orders": {"order_id": "int", "customer_id": "int", "status": "varchar", "amount": "double"},
    "customers": {"customer_id": "int", "name": "varchar", "region": "varchar"},
    "returns": {"order_id": "int", "reason": "varchar", "refund": "double"},
}
TWINS = {
    "hash_join/inner_keys_residual":
        "SELECT o.order_id, c.name FROM orders AS o JOIN customers AS c "
        "ON o.customer_id = c.customer_id AND o.amount > 10 WHERE c.region = 'EU'",
    "hash_join/right_mark":
        "SELECT c.name, EXISTS (SELECT 1 FROM orders AS o WHERE o.customer_id IS NOT DISTINCT FROM c.customer_id) "
        "AS mark FROM customers AS c",
    "merge_join/outer_custom_comparison":
        "SELECT o.order_id, r.refund FROM orders AS o FULL JOIN returns AS r "
        "ON o.order_id = r.order_id AND equal_ignore_case(o.status, r.reason) WHERE r.refund > 0",
    "nested_loop_join/left_expression":
        "SELECT o.order_id, c.name FROM orders AS o LEFT JOIN customers AS c "
        "ON o.customer_id = c.customer_id AND o.status <> c.region",
    "nested_loop_join/comma_join":
        "SELECT o.order_id, c.name FROM orders AS o, customers AS c "
        "WHERE o.customer_id = c.customer_id AND o.amount > 10",
    "exchange/scatter_by_fields": "SELECT amount, order_id FROM orders",
    "exchange/single_target_under_aggregate": "SELECT status, SUM(amount) AS total FROM orders GROUP BY status",
    "top_n/rows_only": "SELECT order_id, amount FROM orders ORDER BY amount DESC, customer_id LIMIT 5 OFFSET 2",
    "top_n/with_ties": "SELECT order_id FROM orders ORDER BY UPPER(status) FETCH FIRST 3 ROWS WITH TIES",
}


def cases() -> list[str]:
    return sorted(f"{p.parent.name}/{p.name.removesuffix('.plan.json')}"
                  for kind in PHYSICAL for p in (GOLDEN / kind).glob("*.plan.json"))


def document(case: str) -> dict:
    return json.loads((GOLDEN / f"{case}.plan.json").read_text(encoding="utf-8"))


def as_binary(doc: dict) -> bytes:
    plan = plan_schema().plan_class()
    json_format.ParseDict(doc, plan, descriptor_pool=plan_schema().pool)
    return plan.SerializeToString()


def lower(doc: dict):
    return SubstraitPlan.from_bytes(json.dumps(doc)).to_statements()


def test_every_physical_relation_has_golden_cases_and_every_case_but_one_a_twin() -> None:
    assert {case.split("/")[0] for case in cases()} == set(PHYSICAL)
    # The anti join has no SQL twin with the same answer: NOT EXISTS gives control, not join, lineage.
    assert set(cases()) - set(TWINS) == {"hash_join/left_anti_deprecated_keys"}


@pytest.mark.parametrize("case", sorted(TWINS))
def test_physical_plan_explains_like_its_sql_twin(case: str) -> None:
    plan = SubstraitPlan.from_file(GOLDEN / f"{case}.plan.json", schema=SCHEMA)
    assert prism_lineage.explain(plan) == prism_lineage.explain(TWINS[case], schema=SCHEMA, dialect="postgres")


@pytest.mark.parametrize("case", cases())
def test_binary_plan_explains_like_its_json(case: str) -> None:
    """In binary the physical joins' own type numbers are on the wire (LEFT_ANTI is 7, where
    JoinRel's 7 is LEFT_SINGLE), and the deprecated hash join keys under their old numbers."""
    from_json = prism_lineage.explain(SubstraitPlan.from_file(GOLDEN / f"{case}.plan.json"))
    from_binary = prism_lineage.explain(SubstraitPlan.from_bytes(as_binary(document(case)), name="plan.bin"))
    assert from_binary == from_json


def test_a_physical_join_is_the_logical_join_it_implements() -> None:
    anti = lower(document("hash_join/left_anti_deprecated_keys"))[0]
    join = next(r for r in walk_relations(anti.root) if isinstance(r, Join))
    assert join.kind is JoinKind.ANTI and [f.name for f in join.fields] == ["order_id", "customer_id", "status",
                                                                            "amount"]
    loop = lower(document("nested_loop_join/comma_join"))[0]
    join = next(r for r in walk_relations(loop.root) if isinstance(r, Join))
    assert join.kind is JoinKind.INNER and join.condition.function == "eq"  # the comma-join rule placed it


def test_top_n_is_a_sort_then_a_limit() -> None:
    statement = lower(document("top_n/rows_only"))[0]
    limit = next(r for r in walk_relations(statement.root) if isinstance(r, Limit))
    assert isinstance(limit.input, Sort) and (limit.count.value, limit.offset.value) == ("5", "2")
    assert [(k.descending, k.nulls_first) for k in limit.input.keys] == [(True, False), (False, False)]


@pytest.mark.parametrize("case, kind", [
    ("hash_join/inner_keys_residual", "HashJoinRel"), ("merge_join/outer_custom_comparison", "MergeJoinRel"),
    ("nested_loop_join/left_expression", "NestedLoopJoinRel"), ("exchange/scatter_by_fields", "ExchangeRel"),
    ("top_n/rows_only", "TopNRel"),
])
def test_targets_keep_the_physical_relation_as_ingress_origin(case: str, kind: str) -> None:
    statement = lower(document(case))[0]
    origin = next(o for o in statement.ingress if o.path == "relations[0].root.input")
    assert origin.kind == kind
    produced = {r.id for r in walk_relations(statement.root)} & set(origin.targets)
    assert produced, f"no relation of the plan came from the {kind}"


# --- bad plans ----------------------------------------------------------------------------------


def _invalid(doc: dict, *fragments: str) -> None:
    with pytest.raises(InvalidPlanError) as caught:
        lower(doc)
    for fragment in fragments:
        assert fragment in str(caught.value)


def test_a_key_resolves_against_its_own_sides_output() -> None:
    doc = document("hash_join/inner_keys_residual")
    doc["relations"][0]["root"]["input"]["hashJoin"]["keys"][0]["right"]["directReference"]["structField"]["field"] = 4
    _invalid(doc, "relations[0].root.input.hash_join.keys[0].right",
             "field 4 is out of range: the input record has 3 field(s) (0: customer_id, 1: name, 2: region)")


def test_a_hash_join_without_keys_is_invalid() -> None:
    doc = document("hash_join/inner_keys_residual")
    del doc["relations"][0]["root"]["input"]["hashJoin"]["keys"]
    _invalid(doc, "relations[0].root.input.hash_join.keys", "the HashJoinRel has no keys")


def test_deprecated_keys_pair_up() -> None:
    doc = document("hash_join/left_anti_deprecated_keys")
    doc["relations"][0]["root"]["input"]["hashJoin"]["leftKeys"].append(copy.deepcopy(
        doc["relations"][0]["root"]["input"]["hashJoin"]["leftKeys"][0]))
    _invalid(doc, "left_keys lists 2 field(s), right_keys 1")


def test_a_key_without_a_side_is_invalid() -> None:
    doc = document("merge_join/outer_custom_comparison")
    del doc["relations"][0]["root"]["input"]["mergeJoin"]["keys"][1]["left"]
    _invalid(doc, "relations[0].root.input.merge_join.keys[1]", "the key has no left field")


def test_an_undeclared_comparison_function_is_invalid() -> None:
    doc = document("merge_join/outer_custom_comparison")
    doc["relations"][0]["root"]["input"]["mergeJoin"]["keys"][1]["comparison"]["customFunctionReference"] = 99
    _invalid(doc, "keys[1].comparison.custom_function_reference", "function reference 99 is not declared")


def test_an_exchange_reads_its_routing_expressions() -> None:
    doc = document("exchange/scatter_by_fields")
    doc["relations"][0]["root"]["input"]["exchange"]["scatterByFields"]["fields"][0]["directReference"][
        "structField"]["field"] = 7
    _invalid(doc, "relations[0].root.input.exchange.scatter_by_fields.fields[0]", "field 7 is out of range")


def test_an_unset_join_type_is_invalid() -> None:
    doc = document("nested_loop_join/left_expression")
    del doc["relations"][0]["root"]["input"]["nestedLoopJoin"]["type"]
    _invalid(doc, "relations[0].root.input.nested_loop_join.type", "unknown join type 0")
