"""DuckDB's ``COLUMNS(lambda c: <predicate>)`` with a schema: the predicate is evaluated on each
column name for the common forms, and the columns it picks are answered exactly (issue 9
leftovers, item 3).  DuckDB is the oracle: the same query runs in DuckDB and the answer must have
its output columns, in its order, each read from the column DuckDB put there.  A predicate in
another form, or a table whose columns are not declared, stays unknown/conservative, with the
reason."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage
from prism_lineage import InvalidStatementError

SCHEMA = {"t1": {"id": "int", "a": "int", "Ab": "int", "b": "varchar", "a_b": "int", "axb": "int"},
          "t2": {"id": "int", "c": "varchar"}}


@pytest.fixture(scope="module")
def database():
    connection = duckdb.connect()
    connection.execute("CREATE TABLE t1 (id INT, a INT, Ab INT, b VARCHAR, a_b INT, axb INT);"
                       "CREATE TABLE t2 (id INT, c VARCHAR)")
    yield connection
    connection.close()


PREDICATES = [
    "c LIKE 'a%'",
    "c LIKE 'a_b'",
    "c NOT LIKE 'a%'",
    "c ILIKE 'A%'",
    "c LIKE 'a!_b' ESCAPE '!'",
    "c GLOB 'a*'",
    "c = 'b' OR c = 'id'",
    "c <> 'id'",
    "c IN ('b', 'Ab')",
    "c NOT IN ('b', 'Ab')",
    "starts_with(c, 'a')",
    "ends_with(c, 'b')",
    "suffix(c, 'b') AND NOT prefix(c, 'A')",
    "contains(c, 'x')",
    "regexp_matches(c, '^a.b$')",
    "lower(c) = 'ab'",
    "upper(c) LIKE 'A%' AND (c LIKE '%b' OR c = 'a')",
    "NOT (c ILIKE '%b%')",
]


@pytest.mark.parametrize("predicate", PREDICATES)
def test_a_lambda_picks_the_columns_duckdb_picks(database, predicate) -> None:
    sql = f"SELECT COLUMNS(lambda c: {predicate}) FROM t1"
    names = [d[0] for d in database.execute(sql).description]
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in statement.fields] == names
    for field in statement.fields:
        assert [(s.column, s.confidence) for s in field.sources] == [(f"t1.{field.name}", "exact")]
    assert statement.uncertain == []


def test_a_lambda_inside_a_function_and_over_a_join(database) -> None:
    sql = "SELECT max(COLUMNS(lambda c: c IN ('id', 'c'))) FROM t1 JOIN t2 USING (id)"
    names = [d[0] for d in database.execute(sql).description]
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in statement.fields] == names
    # The same answer as naming the columns DuckDB picked (the USING column read as a star reads it).
    listed = sql.replace("lambda c: c IN ('id', 'c')", "['id', 'c']")
    assert statement == prism_lineage.explain(listed, SCHEMA, dialect="duckdb").statements[0]


def test_a_lambda_that_picks_nothing_is_refused_as_duckdb_refuses_it(database) -> None:
    sql = "SELECT COLUMNS(lambda c: c LIKE 'zz%') FROM t1"
    with pytest.raises(duckdb.Error):
        database.execute(sql)
    with pytest.raises(InvalidStatementError, match="matches no column"):
        prism_lineage.explain(sql, SCHEMA, dialect="duckdb")


def test_a_form_it_does_not_evaluate_stays_conservative_with_the_reason() -> None:
    sql = "SELECT COLUMNS(lambda c: length(c) > 1 AND c LIKE 'a%') FROM t1"
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    [field] = statement.fields
    assert {s.confidence for s in field.sources} == {"conservative"}
    assert len(field.sources) == 6
    [uncertain] = statement.uncertain
    assert "does not evaluate" in uncertain.reason and "LENGTH(c) > 1" in uncertain.reason


def test_over_a_table_whose_columns_are_not_declared_the_columns_are_unknown() -> None:
    [statement] = prism_lineage.explain("SELECT COLUMNS(lambda c: c LIKE 'a%') FROM t9", SCHEMA,
                                        dialect="duckdb").statements
    [field] = statement.fields
    assert [(s.column, s.confidence) for s in field.sources] == [("t9.*", "unknown")]
    assert any("whose columns are not in the schema" in u.reason for u in statement.uncertain)


# DuckDB's ``* [NOT] LIKE`` / ``ILIKE`` / ``SIMILAR TO`` / ``GLOB`` select items (sqlglot reads most as
# a LIKE of the star): the columns DuckDB picks, never one constant column.
STAR_PATTERNS = ["* LIKE 'a%'", "* NOT LIKE 'a%'", "* ILIKE 'a%'", "* NOT ILIKE 'a%'", "t1.* LIKE '%b'", "* LIKE 'a_b'",
                 "* SIMILAR TO 'a.b'", "* GLOB 'a*'", "* NOT GLOB '*b'"]


@pytest.mark.parametrize("item", STAR_PATTERNS)
def test_a_star_pattern_picks_the_columns_duckdb_picks(database, item) -> None:
    sql = f"SELECT {item} FROM t1"
    names = [d[0] for d in database.execute(sql).description]
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [(f.name, [s.column for s in f.sources]) for f in statement.fields] == [(n, [f"t1.{n}"]) for n in names]
