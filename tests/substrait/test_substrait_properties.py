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
