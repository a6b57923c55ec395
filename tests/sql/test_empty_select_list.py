"""A SELECT with no select list is refused (exit 6) with its line and column, like every other
error: sqlglot keeps no position for the SELECT keyword, so the parse step gives it one."""

from __future__ import annotations

import json

import pytest

import prism_lineage
from prism_lineage import InvalidStatementError
from prism_lineage.cli import main

CASES = [
    ("SELECT", None, (1, 1)),
    ("SELECT 1;\n  SELECT", None, (2, 3)),
    ("SELECT FROM t", "postgres", (1, 1)),
    ("  SELECT DISTINCT\n FROM orders WHERE x", "duckdb", (1, 3)),
    ("WITH c AS (SELECT FROM t) SELECT * FROM c", "duckdb", (1, 12)),
    ("SELECT a FROM (SELECT) AS s", "snowflake", (1, 16)),
    ("SELECT a FROM t UNION ALL\nSELECT", "bigquery", (2, 1)),
    # What stands between SELECT and its list: found again from the first part with a position.
    ("SELECT TOP 5 FROM t", "tsql", (1, 1)),
    ("SELECT 1;\n  SELECT DISTINCT ON (a) FROM t", "postgres", (2, 3)),
    ("SELECT a FROM (SELECT AS STRUCT FROM t)", "bigquery", (1, 16)),
]


@pytest.mark.parametrize("sql, dialect, where", CASES)
def test_an_empty_select_list_names_line_and_column(sql, dialect, where) -> None:
    with pytest.raises(InvalidStatementError) as error:
        prism_lineage.explain(sql, dialect=dialect)
    assert "the select list is empty" in error.value.message
    assert (error.value.line, error.value.column) == where


def test_the_command_says_where(tmp_path, capsys) -> None:
    path = tmp_path / "q.sql"
    path.write_text("SELECT a FROM t;\n\nSELECT\n", encoding="utf-8")
    assert main(["explain", str(path)]) == 6
    assert capsys.readouterr().err.strip() == (
        "prism-lineage: error: the select list is empty (at statement 2, line 3, column 1)")
    assert main(["explain", str(path), "--jobs", "2", "-f", "json"]) == 1
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert records[1]["error"]["line"] == 3 and records[1]["error"]["column"] == 1
