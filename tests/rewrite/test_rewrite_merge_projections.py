"""merge_projections: a projection over a projection becomes one, unless an expression
would be computed twice or read with a different lineage."""

from __future__ import annotations

from rewrite_checks import operators, plan, rewritten

from prism_lineage.ir import Call, Project, Scan
from prism_lineage.rewrite.pipeline import MERGE_PROJECTIONS

ONLY = (MERGE_PROJECTIONS,)


def test_merged_projection_keeps_the_upper_id_and_fields_and_names_both() -> None:
    [result] = rewritten("SELECT c * 2 AS d FROM (SELECT a + 1 AS c FROM t) AS s", rewrites=ONLY)
    upper, lower = _pair(result.authored.root)
    [merged] = operators(result.rewritten.root, Project)
    assert isinstance(merged.input, Scan)
    assert merged.id == upper.id and merged.columns == upper.columns
    assert merged.authored == (upper.id, lower.id)
    [expr] = merged.exprs
    assert isinstance(expr, Call) and expr.function == "mul"
    assert expr.args[0] is lower.exprs[0]  # the lower ``a + 1`` itself, same id and origin


def _pair(root):
    upper = root
    assert isinstance(upper, Project) and isinstance(upper.input, Project)
    return upper, upper.input


def test_a_computed_field_read_twice_is_not_computed_twice() -> None:
    root = plan("SELECT c + c AS d FROM (SELECT a + 1 AS c FROM t) AS s", rewrites=ONLY)
    assert len(operators(root, Project)) == 2


def test_a_bare_field_may_be_read_twice() -> None:
    root = plan("SELECT c + c AS d FROM (SELECT a AS c FROM t) AS s", rewrites=ONLY)
    assert len(operators(root, Project)) == 1


def test_an_opaque_expression_read_through_another_opaque_call_stays() -> None:
    # Merged, value_inputs would give otherudf's reason and confidence to a, not myudf's.
    root = plan("SELECT otherudf(c, 1) AS d FROM (SELECT myudf(a) AS c FROM t) AS s", rewrites=ONLY)
    assert len(operators(root, Project)) == 2


def test_an_opaque_expression_read_as_it_is_or_through_exact_calls_merges() -> None:
    for upper in ("c", "c + 1", "upper(CAST(c AS VARCHAR))"):
        root = plan(f"SELECT {upper} AS d FROM (SELECT myudf(a) AS c FROM t) AS s", rewrites=ONLY)
        assert len(operators(root, Project)) == 1, upper


def test_a_scalar_subquery_moves_up_with_its_field() -> None:
    root = plan("SELECT c + 1 AS d FROM (SELECT (SELECT MAX(x) FROM u) AS c FROM t) AS s", rewrites=ONLY)
    assert isinstance(root, Project) and isinstance(root.input, Scan)


def test_a_correlated_reference_to_the_lower_projection_keeps_both() -> None:
    sql = "SELECT (SELECT MAX(x) FROM u WHERE u.k = s.c) AS d FROM (SELECT a AS c FROM t) AS s"
    root = plan(sql, rewrites=ONLY)
    assert isinstance(root.input, Project)


def test_a_nested_access_to_a_computed_field_is_not_merged() -> None:
    # A subquery in the constructor keeps the access a NestedAccess over the computed field (a
    # constructor of plain expressions is read field by field: specs/nested.md 5a).
    sql = "SELECT s.c.f AS d FROM (SELECT {'f': a + 1, 'g': (SELECT MAX(x) FROM u)} AS c FROM t) AS s"
    root = plan(sql, rewrites=ONLY)
    assert isinstance(root.input, Project)
