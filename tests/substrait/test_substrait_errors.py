"""Bad plans give a clear, typed error naming what is wrong and where — never a traceback:
unreadable file 3, not a plan (protobuf or JSON) 4, an invalid plan 6."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from prism_lineage.errors import InputError, InvalidStatementError, ParseError
from prism_lineage.frontends.substrait import InvalidPlanError, PlanDecodeError, SubstraitPlan

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "substrait"


def plan_of(case: str) -> dict:
    return json.loads((GOLDEN / f"{case}.plan.json").read_text(encoding="utf-8"))


def lower(document: dict) -> None:
    SubstraitPlan.from_bytes(json.dumps(document)).to_statements()


def test_error_classes_carry_the_documented_exit_codes() -> None:
    assert issubclass(PlanDecodeError, ParseError) and PlanDecodeError.exit_code == 4
    assert issubclass(InvalidPlanError, InvalidStatementError) and InvalidPlanError.exit_code == 6
    assert InputError.exit_code == 3


# --- unreadable and undecodable ---------------------------------------------------------------


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="Substrait plan file not found: .*nope.bin"):
        SubstraitPlan.from_file(tmp_path / "nope.bin")


def test_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory"):
        SubstraitPlan.from_file(tmp_path)


@pytest.mark.parametrize("data, message", [
    (b"", "is empty"),
    (b"\xff\xff\xff\xff\xff", "is not a Substrait plan"),
    (b"hello world, not a plan", "is not a Substrait plan"),
    (b"{\"relations\": [", "is not valid JSON"),
    (b"[1, 2]", "is not a Substrait plan"),
    (b"{\"relations\": 3}", "is not a Substrait plan in JSON"),
    (b"{\"relashuns\": []}", "relashuns"),
])
def test_not_a_plan(data: bytes, message: str) -> None:
    with pytest.raises(PlanDecodeError, match=message):
        SubstraitPlan.from_bytes(data, name="input")


def test_json_array_is_not_read_as_binary() -> None:
    with pytest.raises(PlanDecodeError):
        SubstraitPlan.from_bytes("[]")


# --- invalid plans ----------------------------------------------------------------------------


def test_field_index_out_of_range_names_the_path_and_the_fields() -> None:
    document = plan_of("project/emit_reorders")
    document["relations"][0]["root"]["input"]["project"]["expressions"][0]["scalarFunction"]["arguments"][0][
        "value"]["selection"]["directReference"]["structField"]["field"] = 9
    with pytest.raises(InvalidPlanError) as caught:
        lower(document)
    message = str(caught.value)
    assert "relations[0].root.input.project.expressions[0].scalar_function.arguments[0].value" in message
    assert "field 9 is out of range: the input record has 4 field(s) (0: order_id, 1: customer_id, 2: status, " \
           "3: amount)" in message


def test_references_resolve_after_the_inputs_emit() -> None:
    """The join's input projects (emit) two of its fields: field 3 of the join's record is the
    right side's first field, and field 5 does not exist."""
    document = plan_of("join/inner_emit")
    join = document["relations"][0]["root"]["input"]["join"]
    left = join["left"]
    join["left"] = {"project": {"common": {"emit": {"outputMapping": [0, 1]}}, "input": left,
                                "expressions": [{"literal": {"i32": 1}}]}}
    join["common"]["emit"]["outputMapping"] = [3, 1]
    join["expression"]["scalarFunction"]["arguments"][1]["value"]["selection"]["directReference"]["structField"][
        "field"] = 2
    document["relations"][0]["root"]["names"] = ["name", "customer_id"]
    answer = SubstraitPlan.from_bytes(json.dumps(document)).to_statements()
    assert [f.name for f in answer[0].root.fields] == ["name", "customer_id"]
    join["common"]["emit"]["outputMapping"] = [5, 1]
    with pytest.raises(InvalidPlanError, match="output_mapping names field 5, but the relation's direct output has "
                                               "5 field"):
        lower(document)


def test_missing_input() -> None:
    document = plan_of("sort/sort_fetch")
    del document["relations"][0]["root"]["input"]["fetch"]["input"]["sort"]["input"]
    with pytest.raises(InvalidPlanError, match=r"relations\[0\]\.root\.input\.fetch\.input\.sort: the SortRel has "
                                               "no input relation"):
        lower(document)


def test_empty_relation() -> None:
    document = plan_of("sort/sort_fetch")
    document["relations"][0]["root"]["input"]["fetch"]["input"] = {}
    with pytest.raises(InvalidPlanError, match="the relation is empty"):
        lower(document)


def test_undeclared_function() -> None:
    document = plan_of("filter/comma_join")
    document["extensions"] = document["extensions"][1:]
    with pytest.raises(InvalidPlanError, match="function reference 1 is not declared in the plan's extensions"):
        lower(document)


def test_set_operation_widths_differ() -> None:
    document = plan_of("set/union_all")
    document["relations"][0]["root"]["input"]["set"]["inputs"][1] = plan_of("read/virtual_table")[
        "relations"][0]["root"]["input"]
    document["relations"][0]["root"]["input"]["set"]["inputs"][1]["read"]["baseSchema"] = {
        "names": ["x"], "struct": {"types": [{"i32": {}}]}}
    document["relations"][0]["root"]["input"]["set"]["inputs"][1]["read"]["virtualTable"] = {"expressions": []}
    with pytest.raises(InvalidPlanError, match="the primary has 2, this one 1"):
        lower(document)


def test_reference_to_itself() -> None:
    document = plan_of("reference/self_join")
    document["relations"][0] = {"rel": {"filter": {"input": {"reference": {"subtreeOrdinal": 0}},
                                                   "condition": {"literal": {"boolean": True}}}}}
    with pytest.raises(InvalidPlanError, match=r"relations\[0\] refers to itself"):
        lower(document)


def test_reference_out_of_range() -> None:
    document = plan_of("reference/self_join")
    document["relations"][1]["root"]["input"]["project"]["input"]["join"]["right"]["reference"]["subtreeOrdinal"] = 4
    with pytest.raises(InvalidPlanError, match="subtree_ordinal 4 is out of range: the plan has 2 relation"):
        lower(document)


def test_outer_reference_too_far_out() -> None:
    document = plan_of("filter/exists_steps_out")
    text = json.dumps(document).replace('"stepsOut": 1', '"stepsOut": 2')
    with pytest.raises(InvalidPlanError, match=r"outer reference 2 step\(s\) out, but the expression is nested in "
                                               "1 subquery"):
        SubstraitPlan.from_bytes(text).to_statements()


def test_outer_reference_to_an_unknown_anchor() -> None:
    text = json.dumps(plan_of("filter/outer_rel_reference")).replace('"relReference": 7', '"relReference": 8')
    with pytest.raises(InvalidPlanError, match="no enclosing relation has that anchor"):
        SubstraitPlan.from_bytes(text).to_statements()


def test_extension_leaf_of_unknown_width() -> None:
    document = plan_of("extension/leaf")
    del document["relations"][0]["root"]["input"]["project"]["input"]["extensionLeaf"]["common"]
    with pytest.raises(InvalidPlanError, match="the output schema of this ExtensionLeafRel is unknown"):
        lower(document)


def test_root_names_do_not_fit() -> None:
    document = plan_of("read/projection_and_filters")
    document["relations"][0]["root"]["names"] = ["only_one"]
    with pytest.raises(InvalidPlanError, match=r"relations\[0\]\.root\.names: 1 name\(s\) for 2 output field"):
        lower(document)


def test_base_schema_names_do_not_fit() -> None:
    document = plan_of("read/nested_names")
    document["relations"][0]["root"]["input"]["project"]["input"]["read"]["baseSchema"]["names"].pop()
    with pytest.raises(InvalidPlanError, match="5 name\\(s\\) for 4 field\\(s\\)"):
        lower(document)


def test_no_relations() -> None:
    with pytest.raises(InvalidPlanError, match="the plan has no relations"):
        lower({"version": {"minorNumber": 75}})


def test_window_function_where_none_is_allowed() -> None:
    document = plan_of("project/window_function")
    window = document["relations"][0]["root"]["input"]["project"]["expressions"][0]
    aggregate = plan_of("aggregate/measures")
    aggregate["extensions"] = document["extensions"]
    aggregate["relations"][0]["root"]["input"]["aggregate"]["groupingExpressions"] = [copy.deepcopy(window)]
    with pytest.raises(InvalidPlanError, match="a window function is only allowed in the expressions of a ProjectRel"):
        lower(aggregate)


def test_write_without_operation() -> None:
    document = plan_of("write/insert")
    del document["relations"][0]["root"]["input"]["write"]["op"]
    with pytest.raises(InvalidPlanError, match="the write names no operation"):
        lower(document)


def test_write_nested_in_a_query() -> None:
    document = plan_of("write/insert")
    write = document["relations"][0]["root"]["input"]
    document["relations"][0]["root"]["input"] = {"fetch": {"input": write, "countExpr": {"literal": {"i64": "1"}}}}
    with pytest.raises(InvalidPlanError, match="a WriteRel may only be the root of a plan relation"):
        lower(document)


def test_a_lateral_join_is_inner_or_left_oriented() -> None:
    document = plan_of("lateral_join/per_row_aggregate")
    document["relations"][0]["root"]["input"]["project"]["input"]["lateralJoin"]["type"] = "JOIN_TYPE_RIGHT"
    with pytest.raises(InvalidPlanError, match=r"relations\[0\]\.root\.input\.project\.input\.lateral_join\.type: "
                                               r"a lateral join is inner or left-oriented .* not JOIN_TYPE_RIGHT"):
        lower(document)


def test_a_lateral_joins_right_input_reaches_only_its_anchor() -> None:
    document = plan_of("lateral_join/per_row_aggregate")
    document["relations"][0]["root"]["input"]["project"]["input"]["lateralJoin"]["common"]["relAnchor"] = 6
    with pytest.raises(InvalidPlanError, match="outer reference to relation anchor 5: no enclosing relation has that "
                                               "anchor"):
        lower(document)
