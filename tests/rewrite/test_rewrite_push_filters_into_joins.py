"""push_filters_into_joins: single-side conjuncts move onto the side whose rows the join
keeps whole — never onto the null-producing side of an outer join — and stay filters."""

from __future__ import annotations

import pytest
from rewrite_checks import operators, plan, rewritten

from prism_lineage.functions import FunctionRegistry
from prism_lineage.ir import Filter, Join, Scan
from prism_lineage.lineage.graph import LineageGraph
from prism_lineage.rewrite.pipeline import DECORRELATE_SUBQUERIES, PUSH_FILTERS_INTO_JOINS

ONLY = (PUSH_FILTERS_INTO_JOINS,)


def filtered_tables(root) -> dict[str, list[str]]:
    """Table → the functions of the conjuncts of filters directly over its scan."""
    out: dict[str, list[str]] = {}
    for node in operators(root, Filter):
        if isinstance(node.input, Scan):
            out.setdefault(node.input.table, []).append(node.predicate.function)
    return out


def test_inner_join_takes_each_sides_conjuncts_and_keeps_the_relating_one_above() -> None:
    root = plan("SELECT t.a FROM t JOIN u ON t.k = u.k WHERE t.a > 1 AND u.x < 2 AND t.b = u.y", rewrites=ONLY)
    assert filtered_tables(root) == {"t": ["gt"], "u": ["lt"]}
    [above] = [f for f in operators(root, Filter) if isinstance(f.input, Join)]
    assert above.predicate.function == "eq"


@pytest.mark.parametrize("kind, pushed", [
    ("LEFT", {"t": ["gt"]}),
    ("RIGHT", {"u": ["lt"]}),
    ("FULL", {}),
])
def test_outer_joins_never_take_a_filter_on_their_null_producing_side(kind: str, pushed: dict) -> None:
    root = plan(f"SELECT t.a FROM t {kind} JOIN u ON t.k = u.k WHERE t.a > 1 AND u.x < 2", rewrites=ONLY)
    assert filtered_tables(root) == pushed
    left_over = [f for f in operators(root, Filter) if isinstance(f.input, Join)]
    assert len(left_over) == (1 if pushed or kind == "FULL" else 0)


def test_cross_join_and_comma_join_take_both_sides() -> None:
    root = plan("SELECT t.a FROM t, u WHERE t.a > 1 AND u.x < 2", rewrites=ONLY)
    assert filtered_tables(root) == {"t": ["gt"], "u": ["lt"]}
    assert not [f for f in operators(root, Filter) if isinstance(f.input, Join)]


def test_semi_join_takes_left_conjuncts() -> None:
    root = plan("SELECT t.a FROM t WHERE t.a > 1 AND EXISTS (SELECT 1 FROM u WHERE u.k = t.k)",
                rewrites=(DECORRELATE_SUBQUERIES, PUSH_FILTERS_INTO_JOINS))
    [semi] = operators(root, Join)
    assert isinstance(semi.left, Filter) and isinstance(semi.left.input, Scan) and semi.left.input.table == "t"


def test_a_filter_goes_down_through_nested_joins() -> None:
    root = plan("SELECT t.a FROM t JOIN u ON t.k = u.k JOIN v ON v.k = u.k WHERE t.a > 1", rewrites=ONLY)
    assert filtered_tables(root) == {"t": ["gt"]}


def test_the_moved_conjunct_stays_a_filter_with_control_lineage_and_the_join_condition_is_untouched() -> None:
    [result] = rewritten("SELECT t.a FROM t JOIN u ON t.k = u.k WHERE u.x < 2", rewrites=ONLY)
    [join] = operators(result.rewritten.root, Join)
    [authored_join] = operators(result.authored.root, Join)
    assert join.condition is authored_join.condition
    graph = LineageGraph.of(result.rewritten, FunctionRegistry.default())
    kinds = {(e.source.rpartition("#")[2], e.relationship.value) for e in graph.edges if e.rule == "filter"}
    assert kinds == {("x", "control")}


def test_ids_whole_filter_keeps_its_id_a_part_gets_a_new_one_naming_it() -> None:
    [whole] = rewritten("SELECT t.a FROM t JOIN u ON t.k = u.k WHERE t.a > 1", rewrites=ONLY)
    [authored_filter] = operators(whole.authored.root, Filter)
    [moved] = operators(whole.rewritten.root, Filter)
    assert moved.id == authored_filter.id and moved.authored == ()

    [split] = rewritten("SELECT t.a FROM t JOIN u ON t.k = u.k WHERE t.a > 1 AND u.x < 2", rewrites=ONLY)
    [authored_filter] = operators(split.authored.root, Filter)
    parts = operators(split.rewritten.root, Filter)
    assert len(parts) == 2
    for part in parts:
        assert part.id.startswith(f"{authored_filter.id}/pushed")
        assert part.authored == (authored_filter.id,)
        assert part.origin == authored_filter.origin
        assert [t.id for t in split.authored_targets(part.id)] == [authored_filter.id]


def test_nondeterministic_and_field_free_conjuncts_stay() -> None:
    root = plan("SELECT t.a FROM t JOIN u ON t.k = u.k WHERE t.a + random() > 1 AND random() < 0.5", rewrites=ONLY)
    assert filtered_tables(root) == {}


def test_a_conjunct_with_a_subquery_moves_with_its_correlation() -> None:
    root = plan("SELECT t.a FROM t JOIN u ON t.k = u.k WHERE EXISTS (SELECT 1 FROM v WHERE v.k = t.b)", rewrites=ONLY)
    [below] = [f for f in operators(root, Filter) if isinstance(f.input, Scan) and f.input.table == "t"]
    assert below.predicate.kind.value == "exists"
