"""decorrelate_subqueries: EXISTS / IN / ANY conjuncts become semi joins, NOT EXISTS anti
joins, whose conditions keep the control meaning of the WHERE they were written in."""

from __future__ import annotations

import pytest
from rewrite_checks import operators, plan, rewritten

from prism_lineage.functions import FunctionRegistry
from prism_lineage.ir import Call, FieldRef, Filter, Join, JoinKind, OuterRef, Scan, Subquery
from prism_lineage.ir.expressions import iter_tree
from prism_lineage.lineage.graph import LineageGraph
from prism_lineage.rewrite.pipeline import DECORRELATE_SUBQUERIES

ONLY = (DECORRELATE_SUBQUERIES,)
EXISTS = "SELECT t.a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.x > 0) AND t.b = 1"


def the_join(root) -> Join:
    [join] = operators(root, Join)
    return join


def test_correlated_exists_becomes_a_semi_join() -> None:
    [result] = rewritten(EXISTS, rewrites=ONLY)
    join = the_join(result.rewritten.root)
    assert join.kind is JoinKind.SEMI and join.condition_clause == "where"
    assert isinstance(join.right, Filter) and isinstance(join.right.input, Scan)  # u.x > 0 stays on u
    condition = join.condition
    assert isinstance(condition, Call) and condition.function == "eq"
    # The correlated reference t.k is now read from the left side: same authored node.
    authored_refs = {n.id: n for r in [result.authored.root] for n in _all_exprs(r) if isinstance(n, OuterRef)}
    [outer] = [a for a in condition.args if a.id in authored_refs]
    assert isinstance(outer, FieldRef) and outer.origin == authored_refs[outer.id].origin
    # What is left of the WHERE stays a filter above, with its id.
    [where] = [f for f in operators(result.rewritten.root, Filter) if f.input is join]
    [authored_where] = [f for f in operators(result.authored.root, Filter) if f.clause == "where"
                        and isinstance(f.input, Scan) and f.input.table == "t"]
    assert where.id == authored_where.id


def _all_exprs(root):
    from prism_lineage.ir import walk_relations
    from prism_lineage.ir.walk import expressions_of

    for relation in walk_relations(root):
        for expr in expressions_of(relation):
            yield from iter_tree(expr)


def test_the_semi_join_condition_gives_control_lineage_not_join_lineage() -> None:
    [result] = rewritten(EXISTS, rewrites=ONLY)
    join = the_join(result.rewritten.root)
    graph = LineageGraph.of(result.rewritten, FunctionRegistry.default())
    kinds = {(e.relationship.value, e.transformation.value) for e in graph.edges if e.target == join.id}
    assert kinds == {("control", "filter")}


def test_the_join_names_what_it_stands_for() -> None:
    [result] = rewritten(EXISTS, rewrites=ONLY)
    join = the_join(result.rewritten.root)
    [sub] = [n for n in _all_exprs(result.authored.root) if isinstance(n, Subquery)]
    assert join.id == f"{sub.id}/semi" and join.origin == sub.origin
    labels = [t.label for t in result.authored_targets(join.id)]
    assert labels[:2] == ["Filter", "Subquery(exists)"] and "Project" in labels


def test_not_exists_becomes_an_anti_join() -> None:
    join = the_join(plan("SELECT t.a FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = t.k)", rewrites=ONLY))
    assert join.kind is JoinKind.ANTI


def test_uncorrelated_in_compares_the_needle_with_the_subquerys_field() -> None:
    join = the_join(plan("SELECT t.a FROM t WHERE t.a IN (SELECT x FROM u WHERE y > 1)", rewrites=ONLY))
    assert join.kind is JoinKind.SEMI and join.condition.function == "eq"
    assert join.right.fields[0].id == join.condition.args[1].field


def test_correlated_in_with_a_plain_select_list() -> None:
    join = the_join(plan("SELECT t.a FROM t WHERE t.a IN (SELECT u.x + 1 FROM u WHERE u.k = t.k)", rewrites=ONLY))
    assert join.condition.function == "and"


def test_tuple_in_compares_element_by_element() -> None:
    join = the_join(plan("SELECT t.a FROM t WHERE (t.a, t.b) IN (SELECT x, y FROM u)", rewrites=ONLY))
    assert join.condition.function == "and"
    assert [c.function for c in join.condition.args] == ["eq", "eq"]


def test_any_comparison() -> None:
    join = the_join(plan("SELECT t.a FROM t WHERE t.a > ANY (SELECT x FROM u)", rewrites=ONLY))
    assert join.condition.function == "gt"


def test_having_exists_keeps_its_clause() -> None:
    sql = "SELECT t.k, SUM(t.a) AS s FROM t GROUP BY t.k HAVING EXISTS (SELECT 1 FROM u WHERE u.k = t.k)"
    assert the_join(plan(sql, rewrites=ONLY)).condition_clause == "having"


@pytest.mark.parametrize("predicate", [
    "t.a NOT IN (SELECT x FROM u)",  # NULL in the subquery: no row, unlike an anti join
    "t.a = ALL (SELECT x FROM u)",
    "t.a > 1 OR EXISTS (SELECT 1 FROM u WHERE u.k = t.k)",
    "t.a IN (SELECT myudf(u.x) FROM u WHERE u.k = t.k)",  # would read myudf's input exactly
    "EXISTS (SELECT 1 FROM u WHERE u.k = t.k GROUP BY u.y HAVING COUNT(*) > 1)",
    "EXISTS (SELECT u.y FROM u GROUP BY u.y HAVING MAX(u.k) = t.k)",
    "t.a = (SELECT MAX(x) FROM u WHERE u.k = t.k)",
    "EXISTS (SELECT 1 FROM u WHERE u.k = t.k OR u.x = (SELECT MAX(z) FROM v WHERE v.k = t.k))",
])
def test_not_decorrelated(predicate: str) -> None:
    root = plan(f"SELECT t.a FROM t WHERE {predicate}", rewrites=ONLY)
    assert not operators(root, Join)


def test_exists_in_a_join_condition_is_not_decorrelated() -> None:
    root = plan("SELECT t.a FROM t JOIN v ON v.k = t.k AND EXISTS (SELECT 1 FROM u WHERE u.k = t.k)", rewrites=ONLY)
    assert [j.kind for j in operators(root, Join)] == [JoinKind.INNER]
