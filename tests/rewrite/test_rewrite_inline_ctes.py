"""inline_ctes: every reference to a CTE becomes the definition; the second and later ones a
copy with its own ids, each naming the authored target it copies."""

from __future__ import annotations

import pytest
from rewrite_checks import operators, rewritten

from prism_lineage.ir import CteRef, Join, Project, RecursiveCte, Scan, walk_relations
from prism_lineage.rewrite import inline_ctes as inline_module
from prism_lineage.rewrite.pipeline import INLINE_CTES

ONLY = (INLINE_CTES,)


def test_a_single_reference_becomes_the_definition_with_its_authored_ids() -> None:
    [result] = rewritten("WITH w AS (SELECT a, k FROM t) SELECT w.a FROM w WHERE w.k > 1", rewrites=ONLY)
    [ref] = operators(result.authored.root, CteRef)
    assert not operators(result.rewritten.root, CteRef)
    ids = {r.id for r in walk_relations(result.rewritten.root)}
    assert ref.definition.id in ids and ref.id not in ids


def test_a_self_join_gets_two_sides_with_their_own_ids() -> None:
    [result] = rewritten("WITH w AS (SELECT a, k FROM t) SELECT w1.a FROM w AS w1 JOIN w AS w2 ON w1.k = w2.k",
                         rewrites=ONLY)
    refs = operators(result.authored.root, CteRef)
    [join] = operators(result.rewritten.root, Join)
    left, right = join.left, join.right
    assert isinstance(left, Project) and isinstance(right, Project)
    assert left.id == refs[0].definition.id
    assert right.id == f"{left.id}/{refs[1].id}" and right.authored == (left.id,)
    assert {f.id for f in left.fields}.isdisjoint(f.id for f in right.fields)
    for copied, original in zip(right.columns, left.columns):
        assert copied.authored == (original.id,) and copied.origin == original.origin
    [scan] = [s for s in operators(right, Scan)]
    assert scan.authored == (operators(left, Scan)[0].id,)
    # The join condition reads the copy's field.
    assert join.condition.args[1].field == right.fields[1].id


def test_a_cte_reading_another_cte() -> None:
    sql = "WITH a1 AS (SELECT a, k FROM t), a2 AS (SELECT k FROM a1) SELECT x.k FROM a2 AS x JOIN a1 AS y ON x.k = y.k"
    [result] = rewritten(sql, rewrites=ONLY)
    assert not operators(result.rewritten.root, CteRef)


def test_recursive_ctes_stay() -> None:
    sql = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r"
    [result] = rewritten(sql, rewrites=ONLY)
    assert operators(result.rewritten.root, RecursiveCte)


def test_large_definitions_read_twice_stay_ctes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inline_module, "COPY_LIMIT", 1)
    [result] = rewritten("WITH w AS (SELECT a, k FROM t) SELECT w1.a FROM w AS w1 JOIN w AS w2 ON w1.k = w2.k",
                         rewrites=ONLY)
    assert len(operators(result.rewritten.root, CteRef)) == 2


def test_a_correlated_reference_to_a_cte_reads_the_inlined_definition() -> None:
    sql = "WITH w AS (SELECT a, k FROM t) SELECT w.a FROM w WHERE EXISTS (SELECT 1 FROM u WHERE u.k = w.k)"
    [result] = rewritten(sql, rewrites=ONLY)
    assert not operators(result.rewritten.root, CteRef)


def test_a_definition_a_kept_reference_still_reads_is_copied_not_shared() -> None:
    # A semi join of two references as the statement's root: the left reference's fields are
    # the output (it stays a CTE), so the right one takes a copy, not the definition itself.
    from dataclasses import replace

    from prism_lineage.explain import lower
    from prism_lineage.ir import JoinKind
    from prism_lineage.rewrite import rewrite_statement
    from rewrite_checks import SCHEMA, check_authored_links, check_same_lineage

    from prism_lineage.functions import FunctionRegistry

    [statement] = lower("WITH w AS (SELECT a, k FROM t) SELECT w1.a FROM w AS w1 JOIN w AS w2 ON w1.k = w2.k",
                        SCHEMA, "duckdb")
    [join] = operators(statement.root, Join)
    statement = replace(statement, root=replace(join, kind=JoinKind.SEMI))
    result = rewrite_statement(statement, rewrites=ONLY)
    check_authored_links(result)
    check_same_lineage([statement], [result.rewritten], FunctionRegistry.default())
    root = result.rewritten.root
    assert isinstance(root.left, CteRef) and not isinstance(root.right, CteRef)
    assert root.right.id == f"{root.left.definition.id}/{join.right.id}"
