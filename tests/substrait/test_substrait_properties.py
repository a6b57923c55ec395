"""Property: field references resolve by position against each input's output *after emit*.

Hypothesis builds random stacks of ProjectRel (random references, sums of two references and
random emits that drop, repeat and reorder fields) and FilterRel over one table, and computes
independently which base columns each output field must come from; the explained plan must
say exactly that, for every field, with ``identity`` for pure chains of references.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

import prism_lineage
from prism_lineage.frontends.substrait import SubstraitPlan

ADD, GT = 1, 2
EXTENSIONS = {
    "extensionUrns": [{"extensionUrnAnchor": 1, "urn": "extension:io.substrait:functions_arithmetic"},
                      {"extensionUrnAnchor": 2, "urn": "extension:io.substrait:functions_comparison"}],
    "extensions": [{"extensionFunction": {"extensionUrnReference": 1, "functionAnchor": ADD, "name": "add"}},
                   {"extensionFunction": {"extensionUrnReference": 2, "functionAnchor": GT, "name": "gt"}}],
}


def ref(i: int) -> dict:
    return {"selection": {"directReference": {"structField": {"field": i}}, "rootReference": {}}}


def call(anchor: int, *args: dict) -> dict:
    return {"scalarFunction": {"functionReference": anchor, "arguments": [{"value": a} for a in args]}}


# What one output field is made of: its base columns, and whether it is a plain reference chain.
Lineage = tuple[frozenset[str], bool]


@st.composite
def plans(draw):
    width = draw(st.integers(2, 6))
    columns = [f"c{i}" for i in range(width)]
    rel: dict = {"read": {"baseSchema": {"names": columns, "struct": {"types": [{"i32": {}}] * width}},
                          "namedTable": {"names": ["t"]}}}
    record: list[Lineage] = [(frozenset({c}), True) for c in columns]
    controls: set[str] = set()
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            position = draw(st.integers(0, len(record) - 1))
            rel = {"filter": {"input": rel, "condition": call(GT, ref(position), {"literal": {"i32": 1}})}}
            controls |= record[position][0]
            continue
        expressions, made = [], []
        for _ in range(draw(st.integers(1, 3))):
            a = draw(st.integers(0, len(record) - 1))
            if draw(st.booleans()):
                expressions.append(ref(a))
                made.append(record[a])
            else:
                b = draw(st.integers(0, len(record) - 1))
                expressions.append(call(ADD, ref(a), ref(b)))
                made.append((record[a][0] | record[b][0], False))
        direct = record + made
        project: dict = {"input": rel, "expressions": expressions}
        if draw(st.booleans()):
            mapping = draw(st.lists(st.integers(0, len(direct) - 1), min_size=1, max_size=6))
            project["common"] = {"emit": {"outputMapping": mapping}}
            record = [direct[i] for i in mapping]
        else:
            record = direct
        rel = {"project": project}
    names = [f"o{i}" for i in range(len(record))]
    plan = {**EXTENSIONS, "relations": [{"root": {"input": rel, "names": names}}]}
    return plan, record, controls


@settings(max_examples=60, deadline=None)
@given(plans())
def test_references_resolve_after_emit(case) -> None:
    plan, record, controls = case
    answer = prism_lineage.explain(SubstraitPlan.from_bytes(json.dumps(plan))).model_dump()
    fields = answer["statements"][0]["fields"]
    assert len(fields) == len(record)
    for field, (columns, plain) in zip(fields, record):
        values = [s for s in field["sources"] if s["relationship"] == "value"]
        assert {s["column"] for s in values} == {f"t.{c}" for c in columns}, field["name"]
        # Through references only: identity; through a sum anywhere on the way: every column of
        # the field passes through it, so expression.
        assert {s["transformation"] for s in values} == ({"identity"} if plain else {"expression"})
        control = {s["column"] for s in field["sources"] if s["relationship"] == "control"}
        assert control == {f"t.{c}" for c in controls}


# --- physical joins: each key is a field of its own side's output (after that side's emit) ------

# Join type → which sides the output holds (a right semi or anti join keeps the right side).
OUTPUT_SIDES = {
    "JOIN_TYPE_INNER": "lr", "JOIN_TYPE_OUTER": "lr", "JOIN_TYPE_LEFT": "lr", "JOIN_TYPE_RIGHT": "lr",
    "JOIN_TYPE_LEFT_SINGLE": "lr", "JOIN_TYPE_RIGHT_SINGLE": "lr", "JOIN_TYPE_LEFT_SEMI": "l",
    "JOIN_TYPE_LEFT_ANTI": "l", "JOIN_TYPE_RIGHT_SEMI": "r", "JOIN_TYPE_RIGHT_ANTI": "r",
}


def field_reference(i: int) -> dict:
    return {"directReference": {"structField": {"field": i}}, "rootReference": {}}


@st.composite
def side(draw, table: str) -> tuple[dict, list[str]]:
    """A read of ``table`` with a random emit: (the relation, the base column of each output field)."""
    width = draw(st.integers(1, 4))
    columns = [f"{table}.c{i}" for i in range(width)]
    read: dict = {"baseSchema": {"names": [f"c{i}" for i in range(width)], "struct": {"types": [{"i32": {}}] * width}},
                  "namedTable": {"names": [table]}}
    if draw(st.booleans()):
        mapping = draw(st.lists(st.integers(0, width - 1), min_size=1, max_size=4))
        read["common"] = {"emit": {"outputMapping": mapping}}
        columns = [columns[i] for i in mapping]
    return {"read": read}, columns


@st.composite
def hash_joins(draw):
    (left, left_columns), (right, right_columns) = draw(side("l")), draw(side("r"))
    pairs = draw(st.lists(st.tuples(st.integers(0, len(left_columns) - 1), st.integers(0, len(right_columns) - 1)),
                          min_size=1, max_size=3))
    join_type = draw(st.sampled_from(sorted(OUTPUT_SIDES)))
    relation = "hashJoin" if draw(st.booleans()) else "mergeJoin"
    join: dict = {"left": left, "right": right, "type": join_type}
    if relation == "hashJoin" and draw(st.booleans()):  # the deprecated form
        join["leftKeys"] = [field_reference(a) for a, _ in pairs]
        join["rightKeys"] = [field_reference(b) for _, b in pairs]
    else:
        join["keys"] = [{"left": field_reference(a), "right": field_reference(b)} for a, b in pairs]
    output = {"l": left_columns, "r": right_columns}
    columns = [c for part in OUTPUT_SIDES[join_type] for c in output[part]]
    keys = {left_columns[a] for a, _ in pairs} | {right_columns[b] for _, b in pairs}
    plan = {"relations": [{"root": {"input": {relation: join}, "names": [f"o{i}" for i in range(len(columns))]}}]}
    return plan, columns, keys


@settings(max_examples=60, deadline=None)
@given(hash_joins())
def test_join_keys_resolve_against_each_sides_output(case) -> None:
    from google.protobuf import json_format

    from prism_lineage.frontends.substrait.compat import plan_schema

    plan, columns, keys = case
    # In binary, so that the physical joins' own numbering of join types is what is read.
    message = plan_schema().plan_class()
    json_format.ParseDict(plan, message, descriptor_pool=plan_schema().pool)
    answer = prism_lineage.explain(SubstraitPlan.from_bytes(message.SerializeToString())).model_dump()
    fields = answer["statements"][0]["fields"]
    assert len(fields) == len(columns)
    for field, column in zip(fields, columns):
        assert [(s["column"], s["transformation"]) for s in field["sources"] if s["relationship"] == "value"] == \
            [(column, "identity")]
        assert {s["column"] for s in field["sources"] if s["relationship"] == "join"} == keys
        assert {s["relationship"] for s in field["sources"]} <= {"value", "join"}
