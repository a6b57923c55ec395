"""MATCH_RECOGNIZE with ONE ROW PER MATCH (field trial 21; specs/aggregate.md, "Row pattern
recognition"): read as a grouped derived table — the partitioning columns are grouping sources,
the DEFINE columns and ORDER BY keys control sources of every output, a measure's arguments
its value sources; ALL ROWS PER MATCH and joins stay refused (test_unread_clauses.py)."""

from __future__ import annotations

import pytest

import prism_lineage

SCHEMA = {"t": {"id": "int", "a": "int", "b": "int"}, "x": {"k": "int", "v": "int"}}
TRIAL = ("SELECT * FROM t\nMATCH_RECOGNIZE (\n  PARTITION BY id ORDER BY a\n"
         "  MEASURES FIRST(b) AS fb, MATCH_NUMBER() AS mn\n  {rows}\n  PATTERN (x y+)\n"
         "  DEFINE x AS b > 0, y AS b > PREV(b)\n)")
INDIRECT = [("t.id", "grouping", "aggregate", "exact"), ("t.a", "control", "filter", "exact"),
            ("t.b", "control", "filter", "exact")]


def _fields(sql: str, dialect: str, schema=SCHEMA):
    statement = prism_lineage.explain(sql, schema, dialect=dialect).statements[0]
    return statement, {f.name.lower(): [(s.column, s.relationship, s.transformation, s.confidence)
                                         for s in f.sources] for f in statement.fields}


@pytest.mark.parametrize("dialect", ["snowflake", "oracle", "trino"])
@pytest.mark.parametrize("rows", ["ONE ROW PER MATCH", ""])  # the default is one row per match
def test_trial_21_one_row_per_match(dialect: str, rows: str) -> None:
    statement, fields = _fields(TRIAL.format(rows=rows), dialect)
    assert list(fields) == ["id", "fb", "mn"]  # the partitioning columns, then the measures
    assert fields["id"] == [("t.id", "value", "identity", "exact")] + INDIRECT
    assert fields["fb"] == [("t.b", "value", "aggregate", "exact")] + INDIRECT
    assert fields["mn"] == INDIRECT  # a match counter: no column source
    assert statement.uncertain == []


def test_pattern_variables_navigation_and_measures() -> None:
    sql = ("SELECT m.total, m.last_a, m.cur, m.cls FROM t MATCH_RECOGNIZE (ORDER BY id "
           "MEASURES SUM(y.b) AS total, LAST(a) AS last_a, a AS cur, CLASSIFIER() AS cls "
           "PATTERN (x y*) DEFINE y AS y.b > PREV(x.b)) AS m")
    _, fields = _fields(sql, "snowflake")
    indirect = [("t.b", "control", "filter", "exact"), ("t.id", "control", "filter", "exact")]
    assert fields["total"] == [("t.b", "value", "aggregate", "exact")] + indirect
    assert fields["last_a"] == fields["cur"] == [("t.a", "value", "aggregate", "exact")] + indirect
    assert fields["cls"] == indirect


def test_in_an_insert_and_a_cte() -> None:
    sql = ("INSERT INTO x (k, v) WITH m AS (SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY id ORDER BY a "
           "MEASURES COUNT(*) AS n PATTERN (s+) DEFINE s AS b > 0)) SELECT id, n FROM m")
    statement, fields = _fields(sql, "snowflake")
    assert statement.target == "x"
    assert fields["k"][0] == ("t.id", "value", "identity", "exact")
    assert fields["v"] == INDIRECT


def test_over_a_join_is_refused() -> None:
    with pytest.raises(prism_lineage.InvalidStatementError) as error:
        prism_lineage.explain("SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY id ORDER BY a MEASURES FIRST(b) AS fb "
                              "PATTERN (s) DEFINE s AS b > 0) AS m JOIN x ON x.k = m.id", SCHEMA, dialect="snowflake")
    assert "over a FROM clause with joins is not read" in error.value.message
