"""INDIRECT/CONDITIONAL in the export (specs/openlineage.md, rule 7a): a value source that reaches
its field through the condition of a CASE or IF, told from the expressions the plan-level value
edges name — the lineage rules are unchanged (the answer still says value/expression) — and read
back in the round trip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prism_lineage.cli import main
from prism_lineage.explain import explain_statements, lower
from prism_lineage.ir import Call, FieldRef, Literal
from prism_lineage.openlineage import job_events, to_document
from prism_lineage.openlineage.conditional import ConditionalSource, _condition_positions, conditional_sources
from prism_lineage.openlineage.export import plan_conditions
from prism_lineage.openlineage.readback import NotOurExport, answer_from_facets, conditional_from_facets

SCHEMA = {"orders": {"id": "int", "status": "varchar", "amount": "decimal", "vip": "boolean", "region": "varchar",
                     "discount": "decimal"}}


def export(sql: str, schema=SCHEMA, dialect=None) -> list[dict]:
    statements = lower(sql, schema, dialect)
    explanation = explain_statements(statements)
    return [json.loads(json.dumps(to_document(e))) for e in job_events(explanation, source="q.sql", plans=statements)]


def standard(document: dict) -> dict[str, dict[str, list[tuple[str, str]]]]:
    """field → input column → [(type, subtype)] of the standard facet."""
    facet = document["outputs"][0]["facets"]["columnLineage"]
    return {name: {e["field"]: [(t["type"], t["subtype"]) for t in e["transformations"]] for e in entry["inputFields"]}
            for name, entry in facet["fields"].items()}


def test_a_case_condition_is_conditional_and_its_branches_direct() -> None:
    (document,) = export("SELECT CASE WHEN status = 'paid' THEN amount ELSE 0 END AS paid, "
                         "IF(vip, amount, discount) AS pick, CASE region WHEN 'EU' THEN 1 END AS eu, "
                         "amount + discount AS plain FROM orders")
    fields = standard(document)
    assert fields["paid"] == {"amount": [("DIRECT", "TRANSFORMATION")], "status": [("INDIRECT", "CONDITIONAL")]}
    assert fields["pick"] == {"amount": [("DIRECT", "TRANSFORMATION")], "discount": [("DIRECT", "TRANSFORMATION")],
                              "vip": [("INDIRECT", "CONDITIONAL")]}
    assert fields["eu"] == {"region": [("INDIRECT", "CONDITIONAL")]}  # a simple CASE's operand
    assert fields["plain"] == {"amount": [("DIRECT", "TRANSFORMATION")], "discount": [("DIRECT", "TRANSFORMATION")]}
    # Our answer is unchanged (the RFC's reading: every input of the expression is a value source) …
    ours = document["outputs"][0]["facets"]["prismLineage"]["fields"]
    assert [s["relationship"] for s in ours[0]["sources"]] == ["value", "value"]
    # … and says which of them are conditions, for the reader to check the standard facet against.
    assert ours[0]["conditional"] == [{"column": "orders.status", "only": True}]
    assert "conditional" not in ours[3]


def test_a_column_in_the_condition_and_a_branch_is_both() -> None:
    (document,) = export("SELECT CASE WHEN amount > 100 THEN amount END AS big FROM orders")
    assert standard(document)["big"] == {"amount": [("DIRECT", "TRANSFORMATION"), ("INDIRECT", "CONDITIONAL")]}
    assert document["outputs"][0]["facets"]["prismLineage"]["fields"][0]["conditional"] == [
        {"column": "orders.amount", "only": False}]


def test_conditions_are_followed_through_derived_tables_and_aggregates() -> None:
    (document,) = export(
        "WITH s AS (SELECT status AS st, amount AS a, CASE WHEN vip THEN discount END AS d FROM orders) "
        "SELECT SUM(CASE WHEN st = 'paid' THEN a END) AS paid, MAX(d) + 1 AS top FROM s")
    fields = standard(document)
    assert fields["paid"] == {"amount": [("DIRECT", "AGGREGATION")],
                              "status": [("INDIRECT", "CONDITIONAL")]}
    assert fields["top"] == {"discount": [("DIRECT", "AGGREGATION")], "vip": [("INDIRECT", "CONDITIONAL")]}


def test_an_insert_and_a_scalar_subquery_in_a_condition() -> None:
    (document,) = export("INSERT INTO out_t (flagged) SELECT CASE WHEN (SELECT MAX(amount) FROM orders) > 10 "
                         "THEN id END FROM orders", {**SCHEMA, "out_t": {"flagged": "int"}})
    assert standard(document)["flagged"] == {"amount": [("INDIRECT", "CONDITIONAL")], "id": [("DIRECT", "TRANSFORMATION")]}


def test_a_filter_is_still_a_filter() -> None:
    (document,) = export("SELECT amount FROM orders WHERE CASE WHEN vip THEN amount > 0 ELSE status = 'x' END")
    facet = document["outputs"][0]["facets"]["columnLineage"]
    assert {(e["field"], t["subtype"]) for e in facet["dataset"] for t in e["transformations"]} == {
        ("vip", "FILTER"), ("amount", "FILTER"), ("status", "FILTER")}
    assert standard(document)["amount"] == {"amount": [("DIRECT", "IDENTITY")]}


def test_the_round_trip_reads_conditional_back() -> None:
    sql = ("SELECT CASE WHEN status = 'paid' THEN amount END AS paid, CASE WHEN amount > 1 THEN amount END AS big "
           "FROM orders")
    statements = lower(sql, SCHEMA)
    explanation = explain_statements(statements)
    (document,) = export(sql)
    facets = document["outputs"][0]["facets"]
    assert answer_from_facets(facets) == explanation.statements[0]
    assert conditional_from_facets(facets) == [(ConditionalSource("orders.status", True),),
                                               (ConditionalSource("orders.amount", False),)]
    assert conditional_from_facets(facets) == plan_conditions(statements[0])


def test_a_changed_conditional_is_refused() -> None:
    (document,) = export("SELECT CASE WHEN status = 'paid' THEN amount END AS paid FROM orders")
    facets = document["outputs"][0]["facets"]
    dropped = json.loads(json.dumps(facets))
    del dropped["prismLineage"]["fields"][0]["conditional"]
    with pytest.raises(NotOurExport, match="does not agree"):
        answer_from_facets(dropped)
    flipped = json.loads(json.dumps(facets))
    flipped["columnLineage"]["fields"]["paid"]["inputFields"][1]["transformations"] = [
        {"type": "DIRECT", "subtype": "TRANSFORMATION", "masking": False}]
    with pytest.raises(NotOurExport, match="does not agree"):
        answer_from_facets(flipped)
    wrong = json.loads(json.dumps(facets))
    wrong["prismLineage"]["fields"][0]["conditional"] = [{"column": "orders.id", "only": True}]
    with pytest.raises(NotOurExport, match="orders.id is a condition of paid"):
        answer_from_facets(wrong)


def test_where_it_cannot_be_told_nothing_is_claimed() -> None:
    """A recursive CTE (its value edges form a cycle): every source stays DIRECT."""
    sql = ("WITH RECURSIVE r(n, s) AS (SELECT 1, status FROM orders UNION ALL "
           "SELECT n + 1, CASE WHEN s = 'x' THEN s END FROM r WHERE n < 3) SELECT CASE WHEN n > 1 THEN s END AS v FROM r")
    statements = lower(sql, SCHEMA)
    assert plan_conditions(statements[0]) == [()]
    (document,) = export(sql)
    assert all(t[0] == "DIRECT" for t in sum(standard(document)["v"].values(), []))


def _call(function: str, *args) -> Call:
    return Call("c", None, None, function, tuple(args))


def _field(name: str) -> FieldRef:
    return FieldRef(name, None, None, name)


def test_which_arguments_are_conditions() -> None:
    """The first argument of IF and of a CASE that does not start with a WHEN clause (the operand,
    or the first condition of the flat layouts of Substrait, Spark and Polars plans) — nothing
    else: a later condition of a flat CASE is not told by its position."""
    c, v, d = _field("c"), _field("v"), _field("d")
    assert _condition_positions(_call("if", c, v, d)) == {0}
    assert _condition_positions(_call("if", c, v)) == {0}
    assert _condition_positions(_call("case", _call("if", c, v), d)) == set()      # CASE WHEN c THEN v ELSE d
    assert _condition_positions(_call("case", c, _call("if", Literal("l", None, None, "1"), v))) == {0}  # CASE c WHEN 1
    assert _condition_positions(_call("case", c, v, _field("c2"), d, v)) == {0}    # flat: c2 not claimed
    assert _condition_positions(_call("coalesce", c, v)) == set()


def test_the_command_exports_conditional(tmp_path: Path, capsys) -> None:
    sql = tmp_path / "q.sql"
    sql.write_text("SELECT CASE WHEN vip THEN amount END AS a FROM orders")
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    assert main(["explain", str(sql), "--schema", str(schema), "--format", "openlineage"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert standard(json.loads(line))["a"]["vip"] == [("INDIRECT", "CONDITIONAL")]
