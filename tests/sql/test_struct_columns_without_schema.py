"""``x.a`` where no FROM item is called ``x``: in BigQuery, DuckDB, Spark, Trino … that is the
field ``a`` of a struct column ``x`` (``SELECT project.name FROM billing_export``, the shape of
BigQuery's billing export, INFORMATION_SCHEMA.JOBS and audit logs).  Over a table without a
schema the column is read from the table(s) that may hold it, conservative, with the reason;
Postgres (which needs ``(x).a``) and a schema that declares no such column still refuse.

DuckDB is the oracle for its own reading: it runs the same query over a struct column."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage
from prism_lineage.errors import UnknownColumnError, UnknownTableError


def sources(answer, name):
    return [(s.column, s.relationship, s.transformation, s.confidence, s.path) for s in answer.field(name).sources]


def test_duckdb_reads_a_dotted_name_with_no_such_table_as_a_struct_field():
    connection = duckdb.connect()
    connection.execute("CREATE TABLE t1 (id INT, s STRUCT(a INT, b INT))")
    connection.execute("INSERT INTO t1 VALUES (1, {'a': 10, 'b': 20})")
    assert connection.execute("SELECT s.a AS a FROM t1").fetchall() == [(10,)]  # the oracle
    answer = prism_lineage.explain("SELECT s.a AS a FROM t1", dialect="duckdb").statements[0]
    assert sources(answer, "a") == [("t1.s", "value", "nested_access", "conservative", "s.a")]
    (entry,) = answer.uncertain
    assert "s names no table or alias in scope" in entry.reason and "struct column of t1" in entry.reason


@pytest.mark.parametrize("dialect", ["bigquery", "duckdb", "spark", "databricks", "trino"])
def test_never_exact_without_a_schema(dialect):
    answer = prism_lineage.explain("SELECT tl.a AS a FROM t1", dialect=dialect).statements[0]
    # A mistyped alias (t1 → tl) reads the same way: never exact, and the reason says what was assumed.
    assert {s.confidence for s in answer.field("a").sources} == {"conservative"}
    assert any("tl names no table or alias in scope" in u.reason for u in answer.uncertain)


def test_two_tables_without_a_schema_give_both_candidates():
    answer = prism_lineage.explain("SELECT s.a AS a FROM t1 JOIN t2 ON t1.id = t2.id", dialect="bigquery").statements[0]
    values = [s for s in sources(answer, "a") if s[1] == "value"]
    assert values == [("t1.s", "value", "nested_access", "conservative", "s.a"),
                      ("t2.s", "value", "nested_access", "conservative", "s.a")]


@pytest.mark.parametrize("dialect", ["postgres", "snowflake", "mysql", "tsql"])
def test_dialects_without_dotted_struct_access_still_refuse(dialect):
    with pytest.raises(UnknownTableError, match="(?i)'s'"):
        prism_lineage.explain("SELECT s.a AS a FROM t1", dialect=dialect)


def test_a_schema_that_declares_no_such_column_still_refuses():
    with pytest.raises((UnknownTableError, UnknownColumnError)):
        prism_lineage.explain("SELECT s.a AS a FROM t1", dialect="bigquery", schema={"t1": {"id": "INT64"}})


SCHEMA = {"orders": {"id": "INT64", "customer": "STRUCT<name STRING, city STRING>", "amount": "FLOAT64"}}


@pytest.mark.parametrize("query", [
    "SELECT customer.name AS name, SUM(amount) AS total FROM orders GROUP BY customer.name",
    "SELECT orders.customer.name AS name, SUM(amount) AS total FROM orders GROUP BY customer.name",
    "SELECT o.customer.name AS name, SUM(amount) AS total FROM orders AS o GROUP BY o.customer.name",
    "SELECT customer.name AS name, SUM(amount) AS total FROM orders GROUP BY 1",
])
def test_a_grouped_struct_field_is_its_key_however_it_is_spelt(query):
    answer = prism_lineage.explain(query, dialect="bigquery", schema=SCHEMA).statements[0]
    assert sources(answer, "name") == [
        ("orders.customer", "value", "nested_access", "exact", "customer.name"),
        ("orders.customer", "grouping", "aggregate", "exact", "customer.name"),
    ]
    assert answer.uncertain == []


# --- BigQuery UNNEST of elements whose type is not known -------------------------------------------

JOBS = {"t": {"id": "INT64", "jobs": "ARRAY<STRUCT<duration_ms INT64, user STRING>>"}}


def test_a_name_over_unnest_of_unknown_elements_may_be_their_field_or_the_tables_column():
    answer = prism_lineage.explain("SELECT duration_ms FROM t, UNNEST(t.jobs)", dialect="bigquery").statements[0]
    assert sources(answer, "duration_ms") == [("t.duration_ms", "value", "identity", "conservative", None),
                                              ("t.jobs", "value", "generator", "conservative", "jobs[]"),
                                              ("t.jobs", "control", "generator", "exact", None)]  # trial 69


def test_the_same_query_with_the_elements_declared_is_exact():
    answer = prism_lineage.explain("SELECT duration_ms FROM t, UNNEST(t.jobs)", dialect="bigquery",
                                   schema=JOBS).statements[0]
    assert sources(answer, "duration_ms") == [("t.jobs", "value", "generator", "exact", "jobs[].duration_ms"),
                                              ("t.jobs", "control", "generator", "exact", None)]  # trial 69


def test_the_only_source_being_the_unnest_reads_the_field_of_the_elements():
    answer = prism_lineage.explain("SELECT id, (SELECT MAX(duration_ms) FROM UNNEST(jobs)) AS m FROM t",
                                   dialect="bigquery", schema={"t": {"id": "INT64", "jobs": "ARRAY"}}).statements[0]
    # ``jobs`` is declared without its element type: the field is read from its elements, unchecked.
    assert {(s[0], s[3], s[4]) for s in sources(answer, "m") if s[1] == "value"} == {
        ("t.jobs", "conservative", "jobs[].duration_ms")}
