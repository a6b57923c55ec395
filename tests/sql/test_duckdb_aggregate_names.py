"""DuckDB aggregates sqlglot does not model (``histogram``, ``mad``, ``entropy`` …) were read as
unknown per-row functions (opaque, conservative; with GROUP BY, their argument one value of the
group), and ``f(x) FILTER (WHERE …)`` of such a function was refused ("not allowed here") though only
an aggregate takes FILTER.  DuckDB's list of aggregates (duckdb_functions()) is the oracle for the
names; an aggregate nobody declared, with FILTER, is refused with what to do."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage

SCHEMA = {"h": {"e": "int", "g": "int"}}


@pytest.mark.parametrize("name", ["histogram", "mad", "entropy", "favg", "fsum", "kahan_sum", "sem", "mean",
                                  "reservoir_quantile"])
def test_a_duckdb_aggregate_is_an_aggregate(name: str) -> None:
    aggregates = {r[0] for r in duckdb.connect().execute(
        "SELECT function_name FROM duckdb_functions() WHERE function_type = 'aggregate'").fetchall()}
    assert name in aggregates
    args = "e, 0.5" if name == "reservoir_quantile" else "e"
    sql = f"SELECT g, {name}({args}) AS x FROM h GROUP BY g"
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    x = answer.fields[1]
    assert {(s.column, s.relationship, s.transformation, s.confidence) for s in x.sources} == {
        ("h.e", "value", "aggregate", "exact"), ("h.g", "grouping", "aggregate", "exact")}
    assert answer.uncertain == []


def test_a_filtered_duckdb_aggregate_is_read() -> None:
    sql = "SELECT histogram(DISTINCT e) FILTER (WHERE g < 3)::VARCHAR AS x FROM h"
    connection = duckdb.connect()
    connection.execute("CREATE TABLE h (e INT, g INT); INSERT INTO h VALUES (1, 1), (2, 5)")
    assert len(connection.execute(sql).fetchall()) == 1  # an aggregate: one row
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert {(s.column, s.relationship, s.confidence) for s in answer.fields[0].sources} == {
        ("h.e", "value", "exact"), ("h.g", "control", "exact")}


def test_an_unknown_function_with_filter_is_refused_with_what_to_do() -> None:
    with pytest.raises(prism_lineage.errors.PrismError, match="kind: aggregate"):
        prism_lineage.explain("SELECT my_agg(e) FILTER (WHERE g < 3) FROM h", SCHEMA, dialect="duckdb")
