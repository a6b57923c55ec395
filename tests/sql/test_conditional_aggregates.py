"""A conditional aggregate answers as its aggregate with a FILTER (specs/aggregate.md rule 9):
the same meaning written two ways gives the same sources (field trial 37)."""

import pytest

import prism_lineage

SCHEMA = {"t": {"id": "int", "a": "int", "b": "int", "k": "varchar"}}


def _sources(sql: str, dialect: str) -> list:
    statement = prism_lineage.explain(sql, SCHEMA, dialect).model_dump()["statements"][0]
    return [sorted((s["relationship"], s["column"], s["transformation"], s["confidence"]) for s in f["sources"])
            for f in statement["fields"]]


@pytest.mark.parametrize("dialect, conditional, filtered", [
    ("duckdb", "COUNT_IF(a > 1)", "COUNT(*) FILTER (WHERE a > 1)"),
    ("snowflake", "COUNT_IF(a > 1 AND b < 2)", "COUNT(*) FILTER (WHERE a > 1 AND b < 2)"),
    ("bigquery", "COUNTIF(a > 1)", "COUNT(*) FILTER (WHERE a > 1)"),
    ("clickhouse", "countIf(a > 1)", "COUNT(*) FILTER (WHERE a > 1)"),
    ("clickhouse", "sumIf(b, a > 1)", "SUM(b) FILTER (WHERE a > 1)"),
    ("clickhouse", "argMaxIf(id, b, a > 1)", "argMax(id, b) FILTER (WHERE a > 1)"),
    ("duckdb", "COUNT_IF(a > 1) FILTER (WHERE b > 0)", "COUNT(*) FILTER (WHERE a > 1 AND b > 0)"),
])
def test_a_conditional_aggregate_is_its_aggregate_with_a_filter(dialect, conditional, filtered) -> None:
    one = _sources(f"SELECT k, {conditional} AS m FROM t GROUP BY k", dialect)
    two = _sources(f"SELECT k, {filtered} AS m FROM t GROUP BY k", dialect)
    assert one == two
    assert not any(kind == "value" and column == "t.a" for kind, column, _, _ in one[1])
