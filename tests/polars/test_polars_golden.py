"""Golden Polars programs (``polars_cases.py``): each explained answer equals the reviewed one in
``tests/golden/polars/cases/<case>.json`` and — where a SQL twin says the same — the SQL frontend's
answer, field by field, except the differences the case lists with why (specs/polars.md).

On a mismatch the test writes ``<case>_actual.json``; review it and run ``pytest
--update-goldens`` if the new answer is right.  Every case is also checked for a closed graph,
stable ids and an ingress-origin link for every relation and field.
"""

from __future__ import annotations

import difflib
import json
import warnings

import pytest

pl = pytest.importorskip("polars")

from invariants import check_closed  # noqa: E402
from polars_cases import CASES, SCHEMA, frames  # noqa: E402
from test_golden import GOLDEN, render  # noqa: E402

import prism_lineage  # noqa: E402
from prism_lineage.explain import explain_statements  # noqa: E402
from prism_lineage.frontends.polars import PolarsPlan  # noqa: E402
from prism_lineage.lineage.graph import LineageGraph  # noqa: E402

POLARS_GOLDEN = GOLDEN / "polars" / "cases"
BY_NAME = {case.name: case for case in CASES}


def _plan(case) -> PolarsPlan:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # map_elements warns that it is slow
        return PolarsPlan(case.build(frames()))


def _sources(field) -> set[tuple[str, str, str, str]]:
    return {(s.column, s.relationship, s.transformation, s.confidence) for s in field.sources}


@pytest.mark.parametrize("name", list(BY_NAME))
def test_polars_golden(name: str, update_goldens: bool) -> None:
    case = BY_NAME[name]
    statements, again = _plan(case).to_statements(), _plan(case).to_statements()
    for statement, twin in zip(statements, again):
        graph, twin_graph = LineageGraph.of(statement), LineageGraph.of(twin)
        assert list(graph.targets) == list(twin_graph.targets), "ids differ between two readings of the plan"
        assert graph.edges == twin_graph.edges
        check_closed(graph)
        provenance = {link.target for link in graph.links if link.kind == "ingress"}
        for target in graph.targets.values():
            if target.kind in ("relation", "field"):
                assert target.id in provenance, f"{target.id} has no ingress origin"
    answer = explain_statements(statements).model_dump()
    expected_file = POLARS_GOLDEN / f"{name}.json"
    actual_file = POLARS_GOLDEN / f"{name}_actual.json"
    document = {"description": case.description, "answer": answer}
    if update_goldens:
        expected_file.write_text(render(document), encoding="utf-8")
        actual_file.unlink(missing_ok=True)
        return
    assert expected_file.is_file(), f"{expected_file} is missing: run pytest --update-goldens and review it"
    expected = json.loads(expected_file.read_text(encoding="utf-8"))
    if expected == document:
        actual_file.unlink(missing_ok=True)
        return
    actual_file.write_text(render(document), encoding="utf-8")
    diff = "".join(difflib.unified_diff(render(expected).splitlines(keepends=True),
                                        render(document).splitlines(keepends=True),
                                        fromfile=expected_file.name, tofile=actual_file.name))
    pytest.fail(f"{case.description}\n{diff}", pytrace=False)


@pytest.mark.parametrize("name", [c.name for c in CASES if c.sql is not None])
def test_polars_plan_explains_like_its_sql(name: str) -> None:
    case = BY_NAME[name]
    plan = prism_lineage.explain(_plan(case)).statements[0]
    twin = prism_lineage.explain(case.sql, schema=SCHEMA, dialect="duckdb").statements[0]
    assert [f.name for f in plan.fields] == [f.name for f in twin.fields]
    for from_plan, from_sql in zip(plan.fields, twin.fields):
        sql_only, plan_only = case.differences.get(from_plan.name, (frozenset(), frozenset()))
        assert (_sources(from_sql) - _sources(from_plan), _sources(from_plan) - _sources(from_sql)) == \
               (sql_only, plan_only), from_plan.name
    if case.differences:
        assert case.why, "a case that differs from its SQL says why"


def test_no_stray_golden_files() -> None:
    for path in POLARS_GOLDEN.glob("*.json"):
        if not path.name.endswith("_actual.json"):
            assert path.stem in BY_NAME, f"{path} belongs to no case"


def test_cases_cover_the_issue() -> None:
    """Every operation the issue lists has a case."""
    text = "\n".join(PolarsPlan(case.build(frames())).text for case in CASES
                     if case.name not in ("map_elements",))
    for node in ("SELECT", "WITH_COLUMNS", "FILTER", "JOIN inner", "JOIN left", "JOIN right", "JOIN full",
                 "JOIN semi", "JOIN anti", "JOIN cross", "JOIN asof", "GROUP_BY", ".over(", "SORT", "SLICE",
                 "UNIQUE", "UNION", "MAP explode", "MAP unnest", "struct.field_by_name", "list.get"):
        assert node in text, node
