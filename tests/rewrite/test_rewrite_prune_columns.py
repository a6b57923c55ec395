"""prune_columns: fields nobody reads are not computed, and scans read only what is left."""

from __future__ import annotations

from rewrite_checks import operators, plan, rewritten

from prism_lineage.ir import Aggregate, Project, Scan, SetOperation, Window
from prism_lineage.rewrite.pipeline import PRUNE_COLUMNS

ONLY = (PRUNE_COLUMNS,)


def scanned(root) -> dict[str, list[str]]:
    return {s.table: [f.name for f in s.columns] for s in operators(root, Scan)}


def test_unread_projection_fields_and_their_columns_go() -> None:
    root = plan("SELECT s.c FROM (SELECT a + 1 AS c, b * 2 AS d FROM t) AS s", rewrites=ONLY)
    inner = root.input
    assert isinstance(inner, Project) and [f.name for f in inner.columns] == ["c"]
    assert scanned(root) == {"t": ["a"]}


def test_a_filter_still_reads_what_it_reads() -> None:
    root = plan("SELECT s.c FROM (SELECT a AS c, b AS d FROM t) AS s WHERE s.d > 1", rewrites=ONLY)
    assert scanned(root) == {"t": ["a", "b"]}


def test_group_keys_stay_unread_measures_and_window_calls_go() -> None:
    root = plan("SELECT s.k FROM (SELECT k, SUM(a) AS total, COUNT(*) AS n FROM t GROUP BY k, b) AS s", rewrites=ONLY)
    [aggregate] = operators(root, Aggregate)
    assert len(aggregate.keys) == 2 and not aggregate.measures
    assert scanned(root) == {"t": ["b", "k"]}
    root = plan("SELECT s.a FROM (SELECT a, SUM(b) OVER (PARTITION BY k) AS w FROM t) AS s", rewrites=ONLY)
    assert not operators(root, Window) and scanned(root) == {"t": ["a"]}


def test_whole_rows_stay_whole() -> None:
    root = plan("SELECT s.a FROM (SELECT DISTINCT a, b FROM t) AS s", rewrites=ONLY)
    assert scanned(root) == {"t": ["a", "b"]}
    root = plan("SELECT s.a FROM (SELECT a, b FROM t EXCEPT SELECT x, y FROM u) AS s", rewrites=ONLY)
    [setop] = operators(root, SetOperation)
    assert len(setop.columns) == 2 and scanned(root) == {"t": ["a", "b"], "u": ["x", "y"]}


def test_a_column_read_by_a_correlated_subquery_stays() -> None:
    root = plan("SELECT s.a FROM (SELECT a, k FROM t) AS s WHERE EXISTS (SELECT 1 FROM u WHERE u.k = s.k)",
                rewrites=ONLY)
    assert scanned(root)["t"] == ["a", "k"]


def test_the_output_is_never_pruned() -> None:
    root = plan("SELECT a, b, k FROM t", rewrites=ONLY)
    assert [f.name for f in root.fields] == ["a", "b", "k"]


def test_pruning_a_dead_subquery_keeps_what_the_statement_reads() -> None:
    # The scalar subquery over `u` feeds a column nobody reads, so pruning drops it; the
    # statement as written still reads `u`, and rewrites never change an answer.
    sql = ("SELECT DISTINCT r2.o0 AS o0 FROM (SELECT r3.a AS o0, "
           "(SELECT MAX(q.x) FROM u AS q WHERE q.k = r3.a) AS o2 FROM t AS r3 ORDER BY 1 LIMIT 5) AS r2")
    (result,) = rewritten(sql)
    assert result.rewritten.reads == ("t", "u")
