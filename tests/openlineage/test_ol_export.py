"""Export: the standard column-lineage facet of hand-checked cases, the prismLineage facet beside
it, validation of every exported document, and the round trip back into the same answer."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism_lineage.cli import main
from prism_lineage.explain import FieldAnswer, SourceColumn, StatementAnswer, UncertainItem, explain, explain_statements, lower
from prism_lineage.lineage.kinds import Confidence, Relationship, Transformation
from prism_lineage.openlineage import (
    NotOurExport,
    answer_from_facets,
    column_lineage_facet,
    explanation_from_events,
    job_events,
    prism_lineage_facet,
    problems,
    to_document,
)
from prism_lineage.openlineage.mapping import to_standard

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
from test_golden import all_cases, read_case  # noqa: E402

sys.path.insert(0, str(TESTS.parent))
from benchmarks.workloads import load  # noqa: E402

SHOP = {
    "orders": {"order_id": "int", "customer_id": "int", "amount": "decimal", "status": "text", "region": "text"},
    "customers": {"id": "int", "name": "text", "vip": "boolean"},
    "summary": {"customer_id": "int", "total_amount": "decimal"},
}


def standard(sql: str, schema=SHOP, dialect=None, namespace="default") -> dict:
    (answer,) = explain(sql, schema, dialect).statements
    return to_document(column_lineage_facet(answer, namespace=namespace))


def inputs(entries: list[dict]) -> list[tuple]:
    """(table.column, [type/subtype/masking …]) per input field, in order."""
    return [(f"{e['name']}.{e['field']}",
             [f"{t['type']}/{t['subtype']}" + {True: "/masked", False: "", None: "/masking?"}[t.get("masking")]
              if t["type"] == "DIRECT" else f"{t['type']}/{t['subtype']}" for t in e["transformations"]])
            for e in entries]


def test_the_worked_example() -> None:
    facet = standard("INSERT INTO summary SELECT customer_id, SUM(amount) AS total_amount FROM orders "
                     "WHERE status = 'paid' GROUP BY customer_id")
    assert facet["_schemaURL"].startswith("https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json")
    assert inputs(facet["fields"]["customer_id"]["inputFields"]) == [("orders.customer_id", ["DIRECT/IDENTITY"])]
    assert inputs(facet["fields"]["total_amount"]["inputFields"]) == [("orders.amount", ["DIRECT/AGGREGATION"])]
    # Grouping and the filter concern the whole written relation: the dataset-level list.
    assert inputs(facet["dataset"]) == [("orders.customer_id", ["INDIRECT/GROUP_BY"]),
                                        ("orders.status", ["INDIRECT/FILTER"])]
    assert {e["namespace"] for e in facet["dataset"]} == {"default"}


def test_field_specific_dependencies_stay_under_their_field() -> None:
    facet = standard("SELECT customer_id, CASE WHEN status = 'paid' THEN amount ELSE 0 END AS paid, "
                     "ROW_NUMBER() OVER (PARTITION BY region ORDER BY amount) AS rn "
                     "FROM orders WHERE amount > 10 ORDER BY customer_id")
    assert inputs(facet["fields"]["rn"]["inputFields"]) == [("orders.amount", ["INDIRECT/WINDOW"]),
                                                           ("orders.region", ["INDIRECT/WINDOW"])]
    # A CASE condition is a value input to us (the RFC): TRANSFORMATION, not CONDITIONAL.
    assert inputs(facet["fields"]["paid"]["inputFields"]) == [("orders.amount", ["DIRECT/TRANSFORMATION"]),
                                                             ("orders.status", ["DIRECT/TRANSFORMATION"])]
    assert inputs(facet["dataset"]) == [("orders.amount", ["INDIRECT/FILTER"]), ("orders.customer_id", ["INDIRECT/SORT"])]


def test_join_keys_and_a_scalar_subquery() -> None:
    facet = standard("SELECT o.order_id, c.name, (SELECT MAX(amount) FROM orders x WHERE x.region = 'eu') AS top "
                     "FROM orders o JOIN customers c ON o.customer_id = c.id")
    assert inputs(facet["dataset"]) == [("customers.id", ["INDIRECT/JOIN"]), ("orders.customer_id", ["INDIRECT/JOIN"])]
    assert inputs(facet["fields"]["top"]["inputFields"]) == [("orders.amount", ["DIRECT/AGGREGATION"]),
                                                            ("orders.region", ["INDIRECT/FILTER"])]


def test_masking_and_what_the_standard_facet_cannot_hold() -> None:
    case = read_case(TESTS / "golden" / "policy" / "masked_column.sql")
    (answer,) = explain(case.sql, case.schema, case.dialect).statements
    facet = to_document(column_lineage_facet(answer))
    assert inputs(facet["fields"]["EMAIL"]["inputFields"]) == [("customers.email", ["DIRECT/TRANSFORMATION/masked"])]
    # The policy column the mask reads has no OpenLineage word: only the prismLineage facet has it.
    ours = to_document(prism_lineage_facet(answer))
    email = next(f for f in ours["fields"] if f["name"] == "EMAIL")
    assert {"column": "customers.pii_visible", "relationship": "policy", "transformation": "mask",
            "confidence": "exact"} in email["sources"]
    case = read_case(TESTS / "golden" / "policy" / "row_access_and_checks.sql")
    (answer,) = explain(case.sql, case.schema, case.dialect).statements
    facet = to_document(column_lineage_facet(answer))
    assert facet["dataset"] == [] and all(inputs(f["inputFields"])[0][1] == ["DIRECT/IDENTITY"]
                                          for f in facet["fields"].values())


def test_none_unknown_and_conservative() -> None:
    (answer,) = explain("SELECT 1 AS one, my_udf(o.amount) AS y, COUNT(*) AS n, t.* FROM orders o, t", SHOP).statements
    facet = to_document(column_lineage_facet(answer))
    assert facet["fields"]["one"] == {"inputFields": []}
    (y,) = facet["fields"]["y"]["inputFields"]
    # An opaque function: masking is not known, and the confidence is said in the description.
    assert y["transformations"] == [{"type": "DIRECT", "subtype": "TRANSFORMATION",
                                     "description": "confidence conservative (see the prismLineage facet)"}]
    (star,) = facet["fields"]["t.*"]["inputFields"]
    assert (star["name"], star["field"]) == ("t", "*")
    assert "confidence unknown" in star["transformations"][0]["description"]
    ours = to_document(prism_lineage_facet(answer))
    by_name = {f["name"]: f for f in ours["fields"]}
    assert by_name["one"]["sources"] == [] and by_name["n"]["sources"] == []
    assert by_name["t.*"]["sources"][0]["confidence"] == "unknown"
    assert any(u.get("field") == "t.*" for u in ours["uncertain"])


def test_output_fields_sharing_a_name() -> None:
    (answer,) = explain("SELECT order_id AS x, amount AS x FROM orders", SHOP).statements
    facet = to_document(column_lineage_facet(answer))
    assert inputs(facet["fields"]["x"]["inputFields"]) == [("orders.order_id", ["DIRECT/IDENTITY"]),
                                                          ("orders.amount", ["DIRECT/IDENTITY"])]
    assert [f["name"] for f in to_document(prism_lineage_facet(answer))["fields"]] == ["x", "x"]


def test_rows_of_a_modifying_statement_are_dataset_wide() -> None:
    answers = explain("UPDATE orders SET amount = amount * 2 FROM customers c WHERE orders.customer_id = c.id "
                      "AND c.vip; DELETE FROM orders WHERE status = 'void'", SHOP).statements
    update, delete = (to_document(column_lineage_facet(a)) for a in answers)
    assert inputs(update["dataset"]) == [("customers.vip", ["INDIRECT/FILTER"]), ("customers.id", ["INDIRECT/JOIN"]),
                                         ("orders.customer_id", ["INDIRECT/JOIN"])]
    assert inputs(update["fields"]["amount"]["inputFields"]) == [("orders.amount", ["DIRECT/TRANSFORMATION"])]
    assert delete["fields"] == {} and inputs(delete["dataset"]) == [("orders.status", ["INDIRECT/FILTER"])]


def test_an_explanation_of_several_statements_is_refused_by_name() -> None:
    explanation = explain("SELECT 1; SELECT 2")
    with pytest.raises(Exception, match="holds 2 statements"):
        column_lineage_facet(explanation)


def round_trip(sql: str, schema, dialect=None, through_script: bool = False, file: str | None = None) -> None:
    statements = lower(sql, schema, dialect, file=file, through_script=through_script)
    explanation = explain_statements(statements)
    events = job_events(explanation, source=file or "q.sql", plans=statements)
    documents = [json.loads(json.dumps(to_document(e))) for e in events]
    for document in documents:
        assert problems(document) == []
    back = explanation_from_events(documents)
    assert back.model_dump() == explanation.model_dump()
    assert back == explanation


@pytest.mark.parametrize("path", all_cases(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_golden_case_round_trips(path: Path) -> None:
    case = read_case(path)
    round_trip(case.sql, case.schema, case.dialect, case.through_script, file=path.name)


@pytest.mark.parametrize("name", ["tpch", "tpcds"])
def test_the_workloads_round_trip(name: str) -> None:
    workload = load(name)
    for query, sql in workload.queries:
        round_trip(sql, workload.schema, file=f"{query}.sql")


def test_a_changed_facet_is_refused() -> None:
    (event,) = job_events(explain("SELECT customer_id, SUM(amount) AS t FROM orders GROUP BY 1", SHOP))
    document = json.loads(json.dumps(to_document(event)))
    facets = document["outputs"][0]["facets"]
    facets["columnLineage"]["fields"]["t"]["inputFields"][0]["transformations"][0]["subtype"] = "IDENTITY"
    with pytest.raises(NotOurExport, match="does not agree"):
        answer_from_facets(facets)
    with pytest.raises(NotOurExport, match="no prismLineage facet"):
        answer_from_facets({"columnLineage": facets["columnLineage"]})
    facets["prismLineage"]["fields"][0]["sources"][0]["confidence"] = "certain"
    with pytest.raises(NotOurExport, match="not valid"):
        answer_from_facets(facets)


# Any answer, not only those the engine gives today, survives the trip and projects faithfully.
_sources = st.builds(
    lambda table, column, relationship, transformation, confidence, path: SourceColumn(
        column=f"{table}.{column}", relationship=relationship, transformation=transformation,
        confidence=confidence, path=path),
    st.sampled_from(["orders", "db.sales.items", "t"]), st.sampled_from(["a", "b", "*"]),
    st.sampled_from(list(Relationship)), st.sampled_from(list(Transformation)), st.sampled_from(list(Confidence)),
    st.one_of(st.none(), st.sampled_from(["a.x", "a[]"])),
)
_answers = st.builds(
    lambda fields, uncertain, kind, rows, reads: StatementAnswer(
        index=0, kind=kind, target=None if kind == "select" else "out", fields=fields, uncertain=uncertain,
        rows=rows if kind in ("update", "delete", "merge") else None, reads=reads,
        writes=[] if kind == "select" else ["out"]),
    st.lists(st.builds(FieldAnswer, name=st.sampled_from(["x", "y", "z", "x y"]),
                       sources=st.lists(_sources, max_size=5, unique=True)), max_size=4),
    st.lists(st.builds(UncertainItem, field=st.one_of(st.none(), st.just("x")), reason=st.text(min_size=1, max_size=20))),
    st.sampled_from(["select", "insert", "update", "delete", "merge"]),
    st.lists(_sources, max_size=3, unique=True),
    st.lists(st.sampled_from(["orders", "db.sales.items", "t"]), unique=True).map(sorted),
)


@settings(max_examples=60)
@given(_answers)
def test_any_answer_round_trips_and_projects(answer: StatementAnswer) -> None:
    facet = to_document(column_lineage_facet(answer))
    ours = to_document(prism_lineage_facet(answer))
    facets = json.loads(json.dumps({"columnLineage": facet, "prismLineage": ours}))
    assert answer_from_facets(facets) == answer
    dataset = {(e["name"], e["field"], t["type"], t["subtype"]) for e in facet["dataset"] for t in e["transformations"]}
    for field in answer.fields:
        under = {(e["name"], e["field"], t["type"], t["subtype"])
                 for e in facet["fields"][field.name]["inputFields"] for t in e["transformations"]}
        for source in field.sources:
            mapped = to_standard(source.relationship, source.transformation)
            if mapped is not None:
                table, _, column = source.column.rpartition(".")
                # Every dependency the vocabulary can say is said, under the field or dataset-wide.
                assert (table, column, mapped.type, mapped.subtype) in under | dataset


def test_cli_exports_json_lines(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    sql = tmp_path / "daily.sql"
    sql.write_text("INSERT INTO summary\nSELECT customer_id, SUM(amount) AS total_amount\nFROM orders GROUP BY 1;\n"
                   "SELECT order_id FROM orders;\n")
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SHOP))
    code = main(["explain", str(sql), "--schema", str(schema), "--format", "openlineage",
                 "--openlineage-namespace", "postgres://db:5432"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    first, second = (json.loads(line) for line in out.splitlines())
    assert first["eventTime"] == "2026-01-01T00:00:00.000Z" and "run" not in first
    assert first["job"] == {"namespace": "prism-lineage", "name": f"{sql}#1", "facets": {}}
    assert first["outputs"][0]["namespace"] == "postgres://db:5432" and first["outputs"][0]["name"] == "summary"
    assert [d["name"] for d in first["inputs"]] == ["orders"]
    # A query's result is named as its job, in the job's namespace.
    assert (second["outputs"][0]["namespace"], second["outputs"][0]["name"]) == ("prism-lineage", f"{sql}#2")
    ours = first["outputs"][0]["facets"]["prismLineage"]
    assert ours["fields"][1]["origin"] == {"line": 2, "column": 21, "end_line": 2, "end_column": 30,
                                           "statement": 0, "file": str(sql)}
    assert explanation_from_events([first, second]) == explain(sql.read_text(), SHOP)


def test_cli_refuses_batch_mode(tmp_path: Path, capsys) -> None:
    code = main(["explain", str(tmp_path), "--format", "openlineage"])
    assert code == 2 and "does not take --jobs or a directory" in capsys.readouterr().err
