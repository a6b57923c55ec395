"""Golden PySpark programs (``spark_cases.py``): their Spark Connect plans, built with PySpark's
own Connect classes and no server, are kept in ``tests/golden/spark_connect/cases/<name>.plan.json``
(runnable: ``prism-lineage explain --spark-connect … --schema tests/fixtures/spark_connect/schema.json``)
with the reviewed answer in ``<name>.json`` beside it.  Each answer must equal the reviewed one —
from the committed plan and from the plan built now — and, where a SQL twin says the same, the
SQL frontend's answer field by field (differences listed with why).

``pytest --update-goldens`` rewrites the plans and answers; review the diff.
"""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path

import pytest

pytest.importorskip("pyspark.sql.connect.proto")

from invariants import check_closed  # noqa: E402
from spark_cases import CASES, SCHEMA  # noqa: E402
from spark_session import plan_of, session, sql_frame  # noqa: E402
from test_golden import GOLDEN, render  # noqa: E402

import prism_lineage  # noqa: E402
from prism_lineage.explain import explain_statements  # noqa: E402
from prism_lineage.frontends.spark_connect import SparkConnectPlan  # noqa: E402
from prism_lineage.lineage.graph import LineageGraph  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SPARK_GOLDEN = GOLDEN / "spark_connect" / "cases"
SCHEMA_FILE = ROOT / "tests" / "fixtures" / "spark_connect" / "schema.json"
BY_NAME = {case.name: case for case in CASES}


def build(case):
    from google.protobuf import json_format
    from pyspark.sql.connect import functions as F
    from pyspark.sql.connect.window import Window

    plan = plan_of(case.build(session(), F, Window, sql_frame))
    text = json_format.MessageToJson(plan, indent=1)
    # Call sites relative to the repository, so the committed plans do not depend on where it is.
    text = text.replace(str(ROOT) + "/", "")
    return SparkConnectPlan.from_bytes(text, name=f"{case.name}.plan.json", schema=SCHEMA), text


def _sources(field) -> set[tuple[str, str, str, str]]:
    return {(s.column, s.relationship, s.transformation, s.confidence) for s in field.sources}


@pytest.mark.parametrize("name", list(BY_NAME))
def test_spark_golden(name: str, update_goldens: bool) -> None:
    case = BY_NAME[name]
    plan, text = build(case)
    statements, again = plan.to_statements(), plan.to_statements()
    for statement, twin in zip(statements, again):
        graph, twin_graph = LineageGraph.of(statement), LineageGraph.of(twin)
        assert list(graph.targets) == list(twin_graph.targets), "ids differ between two readings of the plan"
        check_closed(graph)
        provenance = {link.target for link in graph.links if link.kind == "ingress"}
        for target in graph.targets.values():
            if target.kind in ("relation", "field"):
                assert target.id in provenance, f"{target.id} has no ingress origin"
    answer = explain_statements(statements).model_dump()
    document = {"description": case.description, "answer": answer}
    plan_file, expected_file = SPARK_GOLDEN / f"{name}.plan.json", SPARK_GOLDEN / f"{name}.json"
    actual_file = SPARK_GOLDEN / f"{name}_actual.json"
    if update_goldens:
        SPARK_GOLDEN.mkdir(parents=True, exist_ok=True)
        plan_file.write_text(text + "\n", encoding="utf-8")
        expected_file.write_text(render(document), encoding="utf-8")
        SCHEMA_FILE.write_text(json.dumps(SCHEMA, indent=1) + "\n", encoding="utf-8")
        actual_file.unlink(missing_ok=True)
        return
    assert expected_file.is_file() and plan_file.is_file(), f"run pytest --update-goldens for {name} and review"
    expected = json.loads(expected_file.read_text(encoding="utf-8"))
    committed = SparkConnectPlan.from_file(plan_file, schema=json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))
    from_committed = prism_lineage.explain(committed).model_dump()
    assert from_committed == expected["answer"], "the committed plan's answer changed"
    if expected == document:
        actual_file.unlink(missing_ok=True)
        return
    actual_file.write_text(render(document), encoding="utf-8")
    diff = "".join(difflib.unified_diff(render(expected).splitlines(keepends=True),
                                        render(document).splitlines(keepends=True),
                                        fromfile=expected_file.name, tofile=actual_file.name))
    pytest.fail(f"{case.description}\n{diff}", pytrace=False)


@pytest.mark.parametrize("name", [c.name for c in CASES if c.sql is not None])
def test_spark_plan_explains_like_its_sql(name: str) -> None:
    case = BY_NAME[name]
    plan = prism_lineage.explain(build(case)[0]).statements[0]
    twin = prism_lineage.explain(case.sql, schema=SCHEMA, dialect="spark").statements[0]
    assert [f.name for f in plan.fields] == [f.name for f in twin.fields]
    for from_plan, from_sql in zip(plan.fields, twin.fields):
        sql_only, plan_only = case.differences.get(from_plan.name, (frozenset(), frozenset()))
        assert (_sources(from_sql) - _sources(from_plan), _sources(from_plan) - _sources(from_sql)) == \
               (sql_only, plan_only), from_plan.name


def test_expressions_keep_the_call_site() -> None:
    """PySpark records where each expression was written: that is its authored origin."""
    plan, _ = build(BY_NAME["rfc_example"])
    statement = plan.to_statements()[0]
    aggregate = statement.root
    measure = aggregate.measures[0]
    assert measure.origin.file == "tests/spark_connect/spark_cases.py"
    source = (ROOT / measure.origin.file).read_text(encoding="utf-8").splitlines()[measure.origin.line - 1]
    assert 'F.sum("amount")' in source
    kinds = {o.kind for o in statement.ingress}
    assert {"Read", "Filter", "Aggregate"} <= kinds and all(o.protocol == "spark_connect" for o in statement.ingress)
    assert all(o.anchor is not None for o in statement.ingress if o.kind in ("Read", "Filter", "Aggregate"))


def test_every_relation_the_issue_lists_has_a_case() -> None:
    text = "".join(p.read_text(encoding="utf-8") for p in SPARK_GOLDEN.glob("*.plan.json"))
    for relation in ("read", "project", "filter", "join", "aggregate", "sort", "limit", "deduplicate", "setOp",
                     "withColumns", "drop", "toDf", "sql", "offset", "withColumnsRenamed", "subqueryAlias"):
        assert re.search(rf'"{relation}": \{{', text), relation
    for kind in ("GROUP_TYPE_ROLLUP", "GROUP_TYPE_CUBE", "byName", "commonInlineUserDefinedFunction",
                 "expressionString", "window"):
        assert kind in text, kind


def test_no_stray_golden_files() -> None:
    for path in SPARK_GOLDEN.glob("*.json"):
        stem = path.name.removesuffix(".plan.json").removesuffix(".json").removesuffix("_actual")
        assert stem in BY_NAME, f"{path} belongs to no case"
