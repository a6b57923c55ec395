"""Golden files for Substrait plans: ``tests/golden/substrait/<relation>/<case>.plan.json`` is a
plan in Substrait's JSON form (hand-written; it runs as it is with ``prism-lineage explain
--substrait``) and ``<case>.json`` beside it holds ``{"description": …, "answer": …}``: what the
case shows, and the expected ``explain`` answer, written from a reading of the plan and
specs/substrait.md.

Same workflow as the SQL goldens (``tests/test_golden.py``, whose renderer this reuses): on a
mismatch the test fails with a diff and writes ``<case>_actual.json``; review it, and if the new
answer is right run ``pytest --update-goldens`` (which rewrites ``answer`` and keeps the
description).  Every case is also checked for the invariants below: a closed graph, stable ids,
and an ingress-origin link for every relation and field.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest

from invariants import check_closed
from prism_lineage.explain import explain_statements
from prism_lineage.frontends.substrait import SubstraitPlan
from prism_lineage.lineage.graph import LineageGraph
from test_golden import GOLDEN, render

SUBSTRAIT_GOLDEN = GOLDEN / "substrait"


def substrait_cases() -> list[Path]:
    return sorted(SUBSTRAIT_GOLDEN.glob("*/*.plan.json"))


def expected_path(path: Path) -> Path:
    return path.with_name(path.name.removesuffix(".plan.json") + ".json")


def actual_path(path: Path) -> Path:
    return path.with_name(path.name.removesuffix(".plan.json") + "_actual.json")


def check_graph(path: Path) -> dict:
    """The answer for the plan at ``path``, after checking the invariants of its graphs."""
    statements = SubstraitPlan.from_file(path).to_statements()
    again = SubstraitPlan.from_file(path).to_statements()
    for statement, twin in zip(statements, again):
        graph, twin_graph = LineageGraph.of(statement), LineageGraph.of(twin)
        assert list(graph.targets) == list(twin_graph.targets), "ids differ between two readings of the plan"
        assert graph.edges == twin_graph.edges, "edges differ between two readings of the plan"
        check_closed(graph)
        provenance = {link.target for link in graph.links if link.kind == "ingress"}
        for target in graph.targets.values():
            if target.kind in ("relation", "field"):
                assert target.id in provenance, f"{target.id} has no ingress origin"
        assert not any(link.kind == "ingress" and link.target.startswith("column:") for link in graph.links)
    return explain_statements(statements).model_dump()


@pytest.mark.parametrize("path", substrait_cases(), ids=lambda p: f"{p.parent.name}/{p.name.removesuffix('.plan.json')}")
def test_substrait_golden(path: Path, update_goldens: bool) -> None:
    answer = check_graph(path)
    expected_file, actual_file = expected_path(path), actual_path(path)
    assert expected_file.is_file(), f"{expected_file} is missing: write its description and expected answer by hand"
    document = json.loads(expected_file.read_text(encoding="utf-8"))
    assert str(document.get("description", "")).strip(), f"{expected_file} has no description"
    if update_goldens:
        document["answer"] = answer
        expected_file.write_text(render(document), encoding="utf-8")
        actual_file.unlink(missing_ok=True)
        return
    if answer == document["answer"]:
        actual_file.unlink(missing_ok=True)
        return
    text = render({"description": document["description"], "answer": answer})
    actual_file.write_text(text, encoding="utf-8")
    diff = "".join(difflib.unified_diff(
        render(document).splitlines(keepends=True), text.splitlines(keepends=True),
        fromfile=expected_file.name, tofile=actual_file.name,
    ))
    pytest.fail(f"{document['description']}\n{diff}", pytrace=False)


# --- the corpus itself ------------------------------------------------------------------------

REQUIRED_RELATIONS = {
    "read", "filter", "project", "aggregate", "join", "cross", "sort", "fetch", "set", "window", "expand",
    "write", "ddl", "update", "reference", "extensionSingle", "extensionMulti", "extensionLeaf", "lateralJoin",
    # physical relations
    "hashJoin", "mergeJoin", "nestedLoopJoin", "exchange", "topN",
}


def _relation_kinds(node, found: set[str]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in REQUIRED_RELATIONS and isinstance(value, dict):
                found.add(key)
            _relation_kinds(value, found)
    elif isinstance(node, list):
        for item in node:
            _relation_kinds(item, found)


def test_every_relation_type_has_a_golden_case() -> None:
    found: set[str] = set()
    for path in substrait_cases():
        _relation_kinds(json.loads(path.read_text(encoding="utf-8")), found)
    assert REQUIRED_RELATIONS <= found, f"no golden case for {sorted(REQUIRED_RELATIONS - found)}"


def test_every_set_operation_and_join_type_has_a_golden_case() -> None:
    text = "".join(p.read_text(encoding="utf-8") for p in substrait_cases())
    for op in ("UNION_DISTINCT", "UNION_ALL", "MINUS_PRIMARY\"", "MINUS_PRIMARY_ALL", "MINUS_MULTISET",
               "INTERSECTION_PRIMARY", "INTERSECTION_MULTISET\"", "INTERSECTION_MULTISET_ALL"):
        assert f"SET_OP_{op}" in text, op
    for kind in ("OUTER", "LEFT_SEMI", "RIGHT_SEMI", "LEFT_ANTI", "LEFT_SINGLE", "LEFT_MARK", "RIGHT_MARK"):
        assert f"JOIN_TYPE_{kind}" in text, kind


def test_no_stray_expected_files() -> None:
    for expected in SUBSTRAIT_GOLDEN.glob("*/*.json"):
        if expected.name.endswith((".plan.json", "_actual.json")):
            continue
        assert expected.with_name(expected.stem + ".plan.json").is_file(), f"{expected} has no plan beside it"
