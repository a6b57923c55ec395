"""push_filters_through_projections: a filter over a projection moves below it when it can
read the projection's expressions in place of their fields with the same lineage."""

from __future__ import annotations

from rewrite_checks import operators, plan, rewritten

from prism_lineage.functions import FunctionRegistry
from prism_lineage.ir import Call, Filter, Project, Scan
from prism_lineage.rewrite.pipeline import PUSH_FILTERS_THROUGH_PROJECTIONS

ONLY = (PUSH_FILTERS_THROUGH_PROJECTIONS,)


def filter_over_scan(root) -> Filter | None:
    found = [f for f in operators(root, Filter) if isinstance(f.input, Scan)]
    return found[0] if found else None


def test_the_filter_reads_the_projections_own_expression() -> None:
    [result] = rewritten("SELECT s.c FROM (SELECT a + 1 AS c, b FROM t) AS s WHERE s.c > 2", rewrites=ONLY)
    moved = filter_over_scan(result.rewritten.root)
    assert moved is not None
    [authored_filter] = operators(result.authored.root, Filter)
    assert moved.id == authored_filter.id
    inner = [p for p in operators(result.rewritten.root, Project) if isinstance(p.input, Filter)][0]
    # The comparison now reads the projection's ``a + 1`` node itself (same id): no copy.
    assert moved.predicate.args[0] is inner.exprs[0]


def test_through_two_projections() -> None:
    root = plan("SELECT c FROM (SELECT c FROM (SELECT a * 2 AS c FROM t) AS x) AS y WHERE c > 4", rewrites=ONLY)
    assert filter_over_scan(root) is not None


def test_expressions_that_would_read_differently_stay_above() -> None:
    for inner in ("myudf(a)", "a + random()", "(SELECT MAX(x) FROM u)"):
        root = plan(f"SELECT s.c FROM (SELECT {inner} AS c FROM t) AS s WHERE s.c > 2", rewrites=ONLY)
        assert filter_over_scan(root) is None, inner


def test_a_function_declared_conservative_is_not_read_in_place_of_its_field() -> None:
    functions = FunctionRegistry.default().load({"fuzzy": {"confidence": "conservative"}})
    sql = "SELECT s.c FROM (SELECT fuzzy(a) AS c FROM t) AS s WHERE s.c > 2"
    assert filter_over_scan(plan(sql, rewrites=ONLY, functions=functions)) is None


def test_a_correlated_reference_to_the_projection_keeps_the_conjunct_above() -> None:
    sql = "SELECT s.c FROM (SELECT a AS c FROM t) AS s WHERE EXISTS (SELECT 1 FROM u WHERE u.k = s.c)"
    [outer] = [f for f in operators(plan(sql, rewrites=ONLY), Filter) if f.predicate.__class__.__name__ == "Subquery"]
    assert isinstance(outer.input, Project)


def test_a_split_filter_the_part_that_stays_keeps_the_id() -> None:
    [result] = rewritten("SELECT s.c FROM (SELECT a + 1 AS c, myudf(b) AS d FROM t) AS s WHERE s.c > 2 AND s.d > 0",
                         rewrites=ONLY)
    [authored_filter] = operators(result.authored.root, Filter)
    above = [f for f in operators(result.rewritten.root, Filter) if isinstance(f.input, Project)]
    below = filter_over_scan(result.rewritten.root)
    assert [f.id for f in above] == [authored_filter.id]
    assert below is not None and below.authored == (authored_filter.id,) and below.id != authored_filter.id
    assert isinstance(below.predicate, Call) and below.predicate.function == "gt"
