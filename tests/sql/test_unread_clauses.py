"""MATCH_RECOGNIZE with ALL ROWS PER MATCH and CONNECT BY over joins (field trials 21, 22): clauses that decide which
rows a SELECT outputs, not modelled yet — refused with the clause and its position, never
answered as the plain table's lineage marked exact (specs/uncertainty.md rule 9)."""

from __future__ import annotations

import pytest

import prism_lineage
from prism_lineage import InvalidStatementError
from prism_lineage.cli import main

SCHEMA = {"t": {"id": "int", "parent": "int", "a": "int", "b": "int"}, "x": {"id": "int"}}

MATCH = ("MATCH_RECOGNIZE (\n  PARTITION BY id ORDER BY a\n  MEASURES FIRST(b) AS fb, MATCH_NUMBER() AS mn\n"
         "  {rows}\n  PATTERN (x y+)\n  DEFINE x AS b > 0, y AS b > PREV(b)\n)")


@pytest.mark.parametrize("dialect", ["snowflake", "oracle", "trino"])
@pytest.mark.parametrize("rows", ["ALL ROWS PER MATCH"])  # ONE ROW PER MATCH is read: test_match_recognize.py
@pytest.mark.parametrize("query", [
    "SELECT * FROM t\n{match}",
    "SELECT id, fb FROM t {match}",
    "SELECT * FROM (SELECT * FROM t\n{match}) AS m",
    "WITH m AS (SELECT * FROM t\n{match}) SELECT id FROM m",
])
def test_match_recognize_is_refused_with_where(query, rows, dialect) -> None:
    sql = query.format(match=MATCH.format(rows=rows))
    with pytest.raises(InvalidStatementError) as error:
        prism_lineage.explain(sql, SCHEMA, dialect=dialect)
    assert error.value.message.startswith("MATCH_RECOGNIZE (row pattern recognition) with ALL ROWS PER MATCH is "
                                          "not read")
    assert (error.value.line, error.value.column) == (sql[:sql.index("PARTITION BY id")].count("\n") + 1, 16)


@pytest.mark.parametrize("dialect", ["snowflake", "oracle"])
@pytest.mark.parametrize("sql, clause, column", [
    ("SELECT t.id FROM t JOIN x ON x.id = t.id START WITH t.parent IS NULL CONNECT BY PRIOR t.id = t.parent",
     "START WITH … CONNECT BY", 55),
    ("SELECT t.id FROM t, x CONNECT BY PRIOR t.id = t.parent", "CONNECT BY", 49),
])
def test_connect_by_over_joins_is_refused_with_where(sql, clause, column, dialect) -> None:
    """A hierarchical query over one FROM item is read (test_hierarchical_queries.py); over a
    join it is still refused.  The position is that of the first column of the condition
    (sqlglot keeps none for the keywords): START WITH's, else CONNECT BY's."""
    with pytest.raises(InvalidStatementError) as error:
        prism_lineage.explain(sql, SCHEMA, dialect=dialect)
    assert error.value.message.startswith(f"{clause} (a hierarchical query) over a FROM clause with joins is not read")
    assert "WITH RECURSIVE" in error.value.message
    assert (error.value.line, error.value.column) == (1, column)


def test_the_cli_refuses_with_exit_6_and_the_position(tmp_path, capsys) -> None:
    query = tmp_path / "q.sql"
    query.write_text("SELECT 1;\nSELECT t.id FROM t JOIN x ON x.id = t.id\n"
                     "START WITH t.parent IS NULL CONNECT BY PRIOR t.id = t.parent\n")
    schema = tmp_path / "schema.yaml"
    schema.write_text("t: {id: int, parent: int}\nx: {id: int}\n")
    assert main(["explain", str(query), "--schema", str(schema), "-d", "snowflake"]) == 6
    err = capsys.readouterr().err
    assert "CONNECT BY (a hierarchical query) over a FROM clause with joins is not read" in err
    assert "line 3, column 14" in err
    assert "Traceback" not in err
