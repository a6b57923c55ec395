"""DuckDB's list slice with no start over a column, ``a[:stop]`` / ``a[:stop:step]`` (field
trial 71): sqlglot reads ``:stop`` as a named parameter, so the column ``stop`` was lost and
``a[:stop]`` read as one element.  DuckDB is the oracle: changing ``stop`` changes the result."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage

SCHEMA = {"tbl": {"a": "int[]", "stop": "int", "step": "int"}}


@pytest.mark.parametrize("sql, columns", [
    ("SELECT a[:stop] AS x FROM tbl", {"tbl.a", "tbl.stop"}),
    ("SELECT a[:stop:step] AS x FROM tbl", {"tbl.a", "tbl.stop", "tbl.step"}),
    ("SELECT a[ : stop] AS x FROM tbl", {"tbl.a", "tbl.stop"}),
    ("SELECT a[1:stop:step] AS x FROM tbl", {"tbl.a", "tbl.stop", "tbl.step"}),
])
def test_the_end_of_a_slice_without_start_is_read(sql: str, columns: set[str]) -> None:
    connection = duckdb.connect()
    connection.execute("CREATE TABLE tbl (a INT[], stop INT, step INT); INSERT INTO tbl VALUES ([1, 2, 3, 4, 5], 3, 2)")
    before = connection.execute(sql).fetchall()
    connection.execute("UPDATE tbl SET stop = 5")
    assert connection.execute(sql).fetchall() != before
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    [field] = answer.fields
    assert {s.column for s in field.sources} == columns


def test_a_dollar_parameter_in_brackets_stays_a_parameter() -> None:
    [answer] = prism_lineage.explain("SELECT a[$stop] AS x FROM tbl", SCHEMA, dialect="duckdb").statements
    assert {s.column for s in answer.fields[0].sources} == {"tbl.a"}
