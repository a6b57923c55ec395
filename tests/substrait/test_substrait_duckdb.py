"""DuckDB's own Substrait plans, read as DuckDB means them.

The plans were written by DuckDB 1.1.3's Substrait extension (``CALL get_substrait_json``;
``tests/fixtures/duckdb/generate.py`` — DuckDB's extension exists for that release only, so
they are generated in a separate environment and committed).  DuckDB writes a ``ProjectRel``
without an emit meaning "only the expressions"; the reader decides that reading from the
plan's producer and, where the plan names none, from the root names' count, and says which
reading it used in ``uncertain``.

Every golden case (``tests/golden/substrait/duckdb``) and every TPC-H query DuckDB writes is
compared with the same SQL through the SQL frontend, field by field; where DuckDB's optimiser
writes the query as a different relational plan the exact difference is listed with why
(specs/substrait.md, "DuckDB").
"""

from __future__ import annotations

import copy
import json
import re
import sys
from pathlib import Path

import pytest

import prism_lineage
from prism_lineage.frontends.substrait import InvalidPlanError, SubstraitPlan

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "tests" / "fixtures" / "duckdb"
GOLDEN = ROOT / "tests" / "golden" / "substrait" / "duckdb"
TPCH = ROOT / "tests" / "fixtures" / "workloads" / "tpch"
sys.path.insert(0, str(HERE))
from duckdb_cases import CASES, SCHEMA  # noqa: E402

Source = tuple[str, str, str, str]  # column, relationship, transformation, confidence
INDIRECT = {"control", "join", "grouping"}


def _sources(field: dict) -> list[Source]:
    return [(s["column"], s["relationship"], s["transformation"], s["confidence"]) for s in field["sources"]]


def _answers(plan_path: Path, sql: str, schema: dict, dialect: str | None) -> tuple[dict, dict]:
    from_plan = prism_lineage.explain(SubstraitPlan.from_file(plan_path, schema=schema)).model_dump()
    from_sql = prism_lineage.explain(sql, schema=schema, dialect=dialect).model_dump()
    return from_sql["statements"][0], from_plan["statements"][0]


# --- golden cases -----------------------------------------------------------------------------

NOT_WRITTEN = json.loads((HERE / "cases_not_written.json").read_text(encoding="utf-8"))
WRITTEN = [name for name in CASES if name not in NOT_WRITTEN]

# case → (field → (sources only the SQL gives, sources only the plan gives)), and why.
CASE_DIFFERENCES = {
    # DuckDB's optimiser writes ``x IN (subquery)`` as a semi join: the needle and the subquery's
    # column decide matches (join lineage) where SQL's IN filters rows (control).
    "in_subquery": {"name": (
        {("customers.customer_id", "control", "filter", "exact"), ("orders.customer_id", "control", "filter", "exact")},
        {("customers.customer_id", "join", "join", "exact"), ("orders.customer_id", "join", "join", "exact")},
    )},
}


def test_every_case_is_written_or_listed() -> None:
    for name in CASES:
        assert (GOLDEN / f"{name}.plan.json").is_file() != (name in NOT_WRITTEN), name
    assert set(NOT_WRITTEN) == {"distinct", "exists", "window"}  # what DuckDB 1.1.3's extension refuses


@pytest.mark.parametrize("name", WRITTEN)
def test_duckdb_plan_explains_like_its_sql(name: str) -> None:
    from_sql, from_plan = _answers(GOLDEN / f"{name}.plan.json", CASES[name], SCHEMA, "duckdb")
    assert [f["name"] for f in from_plan["fields"]] == [f["name"] for f in from_sql["fields"]]
    expected = CASE_DIFFERENCES.get(name, {})
    for sql_field, plan_field in zip(from_sql["fields"], from_plan["fields"]):
        wanted, found = set(_sources(sql_field)), set(_sources(plan_field))
        sql_only, plan_only = expected.get(sql_field["name"], (set(), set()))
        assert (wanted - found, found - wanted) == (sql_only, plan_only), sql_field["name"]


@pytest.mark.parametrize("name", WRITTEN)
def test_the_reading_is_said(name: str) -> None:
    plan = SubstraitPlan.from_file(GOLDEN / f"{name}.plan.json")
    assert plan.producer == "DuckDB"
    reasons = [u.reason for u in prism_lineage.explain(plan).statements[0].uncertain]
    assert any("read as its producer 'DuckDB' means it: its output is only its expressions" in r for r in reasons)


# --- the reading without a producer -----------------------------------------------------------


def _without_producer(path: Path) -> dict:
    document = json.loads(path.read_text(encoding="utf-8"))
    document.pop("version", None)
    return document


def test_without_a_producer_the_root_names_decide() -> None:
    document = _without_producer(GOLDEN / "join_filter.plan.json")
    plan = SubstraitPlan.from_bytes(json.dumps(document))
    assert plan.producer is None
    answer = prism_lineage.explain(plan)
    with_producer = prism_lineage.explain(SubstraitPlan.from_file(GOLDEN / "join_filter.plan.json"))
    assert answer.statements[0].fields == with_producer.statements[0].fields
    assert [u.reason for u in answer.statements[0].uncertain] == [
        "the plan names no producer, and its root names fit only if a ProjectRel without an emit yields only its "
        "expressions, as DuckDB writes it: read so (the Substrait specification: its input's fields, then its "
        "expressions)"]


def test_a_plan_that_fits_the_specification_is_read_by_it() -> None:
    """The same plan with every ProjectRel given the emit the specification needs for DuckDB's
    meaning, and another producer: read as the specification says, the same answer, nothing
    said about the reading."""
    document = json.loads((GOLDEN / "join_filter.plan.json").read_text(encoding="utf-8"))
    standard = copy.deepcopy(document)
    standard["version"]["producer"] = "someone else"
    _add_emits(standard)
    answer = prism_lineage.explain(SubstraitPlan.from_bytes(json.dumps(standard)))
    duckdb = prism_lineage.explain(SubstraitPlan.from_bytes(json.dumps(document)))
    assert answer.statements[0].fields == duckdb.statements[0].fields
    assert answer.statements[0].uncertain == []


def _add_emits(node) -> None:
    """Give each ProjectRel the emit that keeps only its expressions."""
    if isinstance(node, list):
        for item in node:
            _add_emits(item)
        return
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        if key == "project" and isinstance(value, dict) and "expressions" in value:
            width = _width(value["input"])
            count = len(value["expressions"])
            value.setdefault("common", {})["emit"] = {"outputMapping": list(range(width, width + count))}
        _add_emits(value)


def _width(rel: dict) -> int:
    """The output width of a DuckDB relation (as DuckDB means it)."""
    (kind, node), = rel.items()
    if kind == "read":
        if "projection" in node:
            return len(node["projection"]["select"]["structItems"])
        return len(node["baseSchema"]["names"])
    if kind == "project":
        return len(node["expressions"])
    if kind == "join":
        return _width(node["left"]) + (0 if node.get("type", "").endswith(("SEMI", "ANTI")) else _width(node["right"]))
    if kind == "cross":
        return _width(node["left"]) + _width(node["right"])
    if kind == "aggregate":
        keys = {json.dumps(e, sort_keys=True) for g in node.get("groupings", []) for e in g.get("groupingExpressions", [])}
        return len(keys) + len(node.get("measures", [])) + (1 if len(node.get("groupings", [])) > 1 else 0)
    if kind == "set":
        return _width(node["inputs"][0])
    return _width(node["input"])


def test_inconsistent_under_every_reading_is_refused_naming_the_path() -> None:
    """A root naming fewer fields than the relation yields under either reading (as one
    ibis-substrait version writes after a join) stays a refusal naming the path."""
    document = _without_producer(GOLDEN / "join_filter.plan.json")
    document["relations"][0]["root"]["names"] = ["order_id"]
    with pytest.raises(InvalidPlanError) as caught:
        prism_lineage.explain(SubstraitPlan.from_bytes(json.dumps(document)))
    assert caught.value.path == "relations[0].root.names"
    assert "1 name(s) for 10 output field(s)" in str(caught.value)  # the specification's reading
    assert "nor does the plan fit when a ProjectRel without an emit yields only its expressions" in str(caught.value)
    assert "relations[0].root.names: 1 name(s) for 2 output field(s)" in str(caught.value)


def test_a_join_root_with_too_few_names_is_refused() -> None:
    join = json.loads((GOLDEN / "join_filter.plan.json").read_text(encoding="utf-8"))
    inner = join["relations"][0]["root"]["input"]["project"]["input"]["project"]["input"]
    document = {"extensions": join["extensions"], "extensionUris": join["extensionUris"],
                "relations": [{"root": {"input": inner, "names": ["a", "b"]}}]}
    with pytest.raises(InvalidPlanError, match=r"at relations\[0\]\.root\.names: 2 name\(s\) for 4 output field"):
        prism_lineage.explain(SubstraitPlan.from_bytes(json.dumps(document)))
    document["version"] = {"producer": "ibis-substrait"}
    with pytest.raises(InvalidPlanError, match=r"at relations\[0\]\.root\.names"):
        prism_lineage.explain(SubstraitPlan.from_bytes(json.dumps(document)))


def test_duckdb_producer_with_an_emit_keeps_the_emit() -> None:
    """An emit says exactly which fields a ProjectRel yields, whoever wrote it."""
    document = json.loads((GOLDEN / "project_expressions.plan.json").read_text(encoding="utf-8"))
    project = document["relations"][0]["root"]["input"]["project"]
    width = _width(project["input"])
    project["common"] = {"emit": {"outputMapping": [width + i for i in range(len(project["expressions"]))]}}
    answer = prism_lineage.explain(SubstraitPlan.from_bytes(json.dumps(document)))
    twin = prism_lineage.explain(CASES["project_expressions"], schema=SCHEMA, dialect="duckdb")
    assert [f.sources for f in answer.statements[0].fields] == [f.sources for f in twin.statements[0].fields]
    assert answer.statements[0].uncertain == []


# --- TPC-H --------------------------------------------------------------------------------------

TPCH_NOT_WRITTEN = json.loads((HERE / "tpch" / "not_written.json").read_text(encoding="utf-8"))
TPCH_PLANS = sorted((HERE / "tpch").glob("q*.plan.json"))

# Queries DuckDB's optimiser writes as a different relational plan, and why.  Value lineage is the
# SQL's in every one of them but q03; only the kinds of indirect dependencies differ.
TPCH_DIFFERENCES = {
    "q03": "GROUP BY l_orderkey is written as o_orderkey, equal to it through the join: value and grouping "
           "lineage from orders.o_orderkey; CAST(o_orderdate AS STRING) of a string is dropped (identity)",
    "q07": "the OR over both nations' names stays a filter above inner joins (control), where SQL's comma join "
           "makes a predicate over two tables a join predicate",
    "q11": "HAVING … > (SELECT …) becomes a join with the uncorrelated subquery's result (join, not control)",
    "q15": "total_revenue = (SELECT MAX …) becomes a join with the subquery's result (join, not control)",
    "q18": "IN (subquery) becomes a semi join: its keys are join lineage, no longer control",
    "q19": "the OR of conjunctions over part and lineitem stays a filter above the join (control), where SQL's "
           "comma join makes it the join predicate",
}


# q03's value lineage as SQL gives it and as DuckDB's plan gives it.
Q03_VALUES = {
    "l_orderkey": ([("lineitem.l_orderkey", "value", "identity", "exact")],
                   [("orders.o_orderkey", "value", "identity", "exact")]),
    # CAST(o_orderdate AS STRING) of a string column: DuckDB drops the cast that changes nothing.
    "o_orderdate": ([("orders.o_orderdate", "value", "expression", "exact")],
                    [("orders.o_orderdate", "value", "identity", "exact")]),
}


def _tpch_schema() -> dict:
    return json.loads((TPCH / "schema.json").read_text(encoding="utf-8"))


def _tpch_answers(path: Path) -> tuple[dict, dict]:
    sql = (TPCH / path.name.replace(".plan.json", ".sql")).read_text(encoding="utf-8")
    return _answers(path, sql, _tpch_schema(), None)


def test_tpch_queries_are_written_or_listed() -> None:
    written = {p.name.removesuffix(".plan.json") for p in TPCH_PLANS}
    every = {p.stem for p in TPCH.glob("q*.sql")}
    assert written | set(TPCH_NOT_WRITTEN) == every and not written & set(TPCH_NOT_WRITTEN)


@pytest.mark.parametrize("path", TPCH_PLANS, ids=lambda p: p.name.removesuffix(".plan.json"))
def test_tpch_plan_explains_like_its_sql(path: Path) -> None:
    query = path.name.removesuffix(".plan.json")
    from_sql, from_plan = _tpch_answers(path)
    assert len(from_plan["fields"]) == len(from_sql["fields"])
    differs = False
    for sql_field, plan_field in zip(from_sql["fields"], from_plan["fields"]):
        wanted, found = _sources(sql_field), _sources(plan_field)
        differs |= set(wanted) != set(found)
        values = ([s for s in wanted if s[1] == "value"], [s for s in found if s[1] == "value"])
        if query == "q03" and sql_field["name"] in Q03_VALUES:
            assert values == Q03_VALUES[sql_field["name"]]
        else:
            assert values[0] == values[1], sql_field["name"]
        changed = set(wanted) ^ set(found)
        if query != "q03":
            assert {s[1] for s in changed} <= INDIRECT, sql_field["name"]
    assert differs == (query in TPCH_DIFFERENCES), "listed as differing but agrees (or the reverse)"


def tpch_figures() -> tuple[int, int, int, int]:
    """(queries DuckDB writes, of all queries, fields whose sources are all equal, fields compared)."""
    equal = compared = 0
    for path in TPCH_PLANS:
        from_sql, from_plan = _tpch_answers(path)
        for sql_field, plan_field in zip(from_sql["fields"], from_plan["fields"]):
            compared += 1
            equal += set(_sources(sql_field)) == set(_sources(plan_field))
    return len(TPCH_PLANS), len(TPCH_PLANS) + len(TPCH_NOT_WRITTEN), equal, compared


def test_documented_tpch_figures() -> None:
    text = (ROOT / "docs" / "agreement.md").read_text(encoding="utf-8")
    row = re.search(r"^\| DuckDB 1\.1\.3 \(Substrait\) \| (\d+) of (\d+) \| (\d+) of (\d+) \|", text, re.MULTILINE)
    assert row, "docs/agreement.md has no row for DuckDB"
    queries, of, equal, compared = (int(g) for g in row.groups())
    assert tpch_figures() == (queries, of, equal, compared)
