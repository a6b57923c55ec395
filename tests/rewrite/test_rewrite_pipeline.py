"""The pipeline as a whole: one module and one function per rewrite, the one walk, stable
ids, the statement's interface kept, writes and ingress links carried."""

from __future__ import annotations

import importlib
from dataclasses import replace
from pathlib import Path

import pytest
from rewrite_checks import SCHEMA, operators, rewritten

from prism_lineage.explain import lower
from prism_lineage.functions import FunctionRegistry
from prism_lineage.ir import Call, Filter, Join, JoinKind, Literal, Project, Transformed, transform
from prism_lineage.ir.ingress import IngressOrigin
from prism_lineage.lineage.graph import LineageGraph
from prism_lineage.lineage.graph_format import graph_model
from prism_lineage.rewrite import REWRITES, RewriteError, rewrite_statement
from prism_lineage.rewrite.pipeline import Rewrite

PACKAGE = Path(importlib.import_module("prism_lineage.rewrite").__file__).parent


def test_each_rewrite_is_a_module_with_a_function_of_its_name() -> None:
    for rewrite in REWRITES:
        assert (PACKAGE / f"{rewrite.name}.py").is_file(), rewrite.name
        module = importlib.import_module(f"prism_lineage.rewrite.{rewrite.name}")
        assert getattr(module, rewrite.name) in (rewrite.on_relation, rewrite.on_plan), rewrite.name


def test_ids_are_stable_run_after_run() -> None:
    sql = ("WITH w AS (SELECT a, k FROM t) SELECT w1.a FROM w AS w1 JOIN w AS w2 ON w1.k = w2.k "
           "WHERE w1.a > 1 AND EXISTS (SELECT 1 FROM u WHERE u.k = w2.k)")
    first = [r.rewritten for r in rewritten(sql)]
    second = [r.rewritten for r in rewritten(sql)]
    registry = FunctionRegistry.default()
    dump = lambda statements: graph_model([LineageGraph.of(s, registry) for s in statements]).model_dump()  # noqa: E731
    assert dump(first) == dump(second)


def test_a_rewrite_that_changes_the_output_is_refused() -> None:
    def drop_a_field(node, ctx):
        if isinstance(node, Project) and len(node.columns) > 1:
            return Transformed.yes(replace(node, exprs=node.exprs[:1], columns=node.columns[:1]))
        return Transformed.no(node)

    [statement] = lower("SELECT a, b FROM t", SCHEMA, "duckdb")
    with pytest.raises(RewriteError, match="changed the statement's output fields"):
        rewrite_statement(statement, rewrites=(Rewrite("drop_a_field", on_relation=drop_a_field),))


def test_a_statement_without_a_plan_passes_through() -> None:
    [statement] = lower("DROP TABLE t", SCHEMA, "duckdb")
    result = rewrite_statement(statement)
    assert result.rewritten is statement and result.fired == ()


def test_writes_keep_their_columns() -> None:
    [result] = rewritten("INSERT INTO v SELECT s.k, s.z FROM (SELECT a AS k, b + 1 AS z FROM t) AS s WHERE s.z > 2")
    assert result.rewritten.writes == result.authored.writes
    assert result.fired


def test_ingress_links_follow_the_targets_that_stand_for_theirs() -> None:
    [statement] = lower("SELECT t.a FROM t JOIN u ON t.k = u.k WHERE t.a > 1 AND u.x < 2", SCHEMA, "duckdb")
    [where] = operators(statement.root, Filter)
    node = IngressOrigin("substrait", "relations[0].root.input.filter", "FilterRel", (where.id,), anchor=7)
    result = rewrite_statement(replace(statement, ingress=(node,)))
    [carried] = result.rewritten.ingress
    parts = operators(result.rewritten.root, Filter)
    assert len(parts) == 2 and set(carried.targets) == {p.id for p in parts}
    assert (carried.path, carried.anchor) == (node.path, node.anchor)


def test_the_walk_rewrites_an_expression_root_with_its_subqueries() -> None:
    [statement] = lower("SELECT a FROM t WHERE a IN (SELECT x FROM u WHERE 1 + 1 = 2)", SCHEMA, "duckdb")
    [where] = [f for f in operators(statement.root, Filter) if f.input.table == "t"]

    def fold(node):
        if isinstance(node, Call) and node.function == "add":
            return Transformed.yes(Literal(node.id, node.origin, "INT", "2"))
        return Transformed.no(node)

    result = transform(where.predicate, on_expr=fold)
    assert result.changed
    [inner] = operators(result.node.relation, Filter)
    assert isinstance(inner.predicate.args[0], Literal)
    assert transform(where.predicate).changed is False


@pytest.mark.parametrize("clause, relationship, transformation", [
    (None, "join", "join"), ("where", "control", "filter"), ("having", "control", "filter"),
    ("policy", "policy", "filter"),
])
def test_a_join_condition_means_what_its_clause_means(clause, relationship, transformation) -> None:
    [statement] = lower("SELECT t.a FROM t SEMI JOIN u ON t.k = u.k", SCHEMA, "duckdb")
    [join] = operators(statement.root, Join)
    assert join.kind is JoinKind.SEMI and join.condition_clause is None
    rewritten_root = transform(statement.root, lambda n: Transformed.yes(replace(n, condition_clause=clause))
                               if isinstance(n, Join) else Transformed.no(n)).node
    graph = LineageGraph.of(replace(statement, root=rewritten_root), FunctionRegistry.default())
    kinds = {(e.relationship.value, e.transformation.value) for e in graph.edges if e.rule == "join"}
    assert kinds == {(relationship, transformation)}
