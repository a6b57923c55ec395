"""fold_constants: calls over literals fold where every dialect agrees; TRUE conjuncts go."""

from __future__ import annotations

from rewrite_checks import operators, plan

from prism_lineage.ir import Call, Filter, Join, Literal, Project
from prism_lineage.rewrite.pipeline import FOLD_CONSTANTS

ONLY = (FOLD_CONSTANTS,)


def select_exprs(sql: str):
    root = plan(sql, rewrites=ONLY)
    assert isinstance(root, Project)
    return root.exprs


def test_arithmetic_and_comparison_fold_to_a_literal_keeping_the_calls_id_and_origin() -> None:
    authored = plan("SELECT a + (1 + 2) AS x FROM t", rewrites=())
    [x] = select_exprs("SELECT a + (1 + 2) AS x FROM t")
    assert isinstance(x, Call) and x.function == "add"
    folded = x.args[1]
    assert isinstance(folded, Literal) and (folded.type, folded.value) == ("INT", "3")
    [authored_x] = authored.exprs
    assert folded.id == authored_x.args[1].id and folded.origin == authored_x.args[1].origin


def test_values_folded() -> None:
    exprs = select_exprs(
        "SELECT 1.5 + 2 AS d, -(2 * 3) AS n, 2 > 1 AS c, NULL + 1 AS nul, NULL AND FALSE AS f, "
        "NULL OR TRUE AS t, NOT NULL AS nn, 1 = NULL AS cmp FROM t"
    )
    assert all(isinstance(e, Literal) for e in exprs)
    assert [e.value for e in exprs] == ["3.5", "-6", "TRUE", None, "FALSE", "TRUE", None, None]
    assert [e.type for e in exprs[:3] + exprs[4:]] == ["DECIMAL", "INT", "BOOLEAN"] + ["BOOLEAN"] * 4


def test_what_dialects_disagree_on_is_not_folded() -> None:
    exprs = select_exprs(
        "SELECT 1 / 2 AS q, 7 % 2 AS m, 'a' = 'A' AS s, CAST('1' AS INT) AS c, 9223372036854775807 + 1 AS big, "
        "random() + 1 AS r FROM t"
    )
    assert all(isinstance(e, Call) for e in exprs)


def test_true_conjuncts_are_dropped_and_the_filter_keeps_its_id() -> None:
    authored = operators(plan("SELECT a FROM t WHERE 1 = 1 AND a > 2 * 3", rewrites=()), Filter)
    [where] = operators(plan("SELECT a FROM t WHERE 1 = 1 AND a > 2 * 3", rewrites=ONLY), Filter)
    assert where.id == authored[0].id
    assert isinstance(where.predicate, Call) and where.predicate.function == "gt"
    assert where.predicate.args[1].value == "6"


def test_a_filter_left_with_nothing_goes() -> None:
    assert not operators(plan("SELECT a FROM t WHERE 1 = 1", rewrites=ONLY), Filter)


def test_a_conjunct_that_reads_a_field_stays_beside_false() -> None:
    # Folding the predicate to FALSE would lose the control lineage from t.a.
    [where] = operators(plan("SELECT a FROM t WHERE a > 0 AND 1 = 0", rewrites=ONLY), Filter)
    assert where.predicate.function == "and"
    assert [type(p).__name__ for p in where.predicate.args] == ["Call", "Literal"]


def test_join_condition_on_true_loses_the_condition() -> None:
    [join] = operators(plan("SELECT t.a FROM t JOIN u ON 1 = 1", rewrites=ONLY), Join)
    assert join.condition is None


def test_unchanged_plan_reports_no_change() -> None:
    from rewrite_checks import fired

    assert fired("SELECT a FROM t WHERE a > 1", rewrites=ONLY) == ()
