"""MATCH_RECOGNIZE and CONNECT BY (field trials 21, 22): clauses that decide which rows a
SELECT outputs, not modelled yet — refused with the clause and its position, never answered
as the plain table's lineage marked exact (specs/uncertainty.md rule 9)."""

from __future__ import annotations

import pytest

import prism_lineage
from prism_lineage import InvalidStatementError
from prism_lineage.cli import main

SCHEMA = {"t": {"id": "int", "parent": "int", "a": "int", "b": "int"}, "x": {"id": "int"}}

MATCH = ("MATCH_RECOGNIZE (\n  PARTITION BY id ORDER BY a\n  MEASURES FIRST(b) AS fb, MATCH_NUMBER() AS mn\n"
         "  {rows}\n  PATTERN (x y+)\n  DEFINE x AS b > 0, y AS b > PREV(b)\n)")


@pytest.mark.parametrize("dialect", ["snowflake", "oracle", "trino"])
@pytest.mark.parametrize("rows", ["ONE ROW PER MATCH", "ALL ROWS PER MATCH"])
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
    assert error.value.message.startswith("MATCH_RECOGNIZE (row pattern recognition) is not read")
    assert (error.value.line, error.value.column) == (sql[:sql.index("PARTITION BY id")].count("\n") + 1, 16)


@pytest.mark.parametrize("dialect", ["snowflake", "oracle"])
@pytest.mark.parametrize("sql, clause, column", [
    ("SELECT id, b FROM t START WITH parent IS NULL CONNECT BY PRIOR id = parent", "START WITH … CONNECT BY", 32),
    ("SELECT id, b, LEVEL AS lvl FROM t START WITH parent IS NULL CONNECT BY PRIOR id = parent",
     "START WITH … CONNECT BY", 46),
    ("SELECT id FROM t CONNECT BY PRIOR id = parent", "CONNECT BY", 40),
    ("INSERT INTO x SELECT id FROM t START WITH parent IS NULL CONNECT BY NOCYCLE PRIOR id = parent",
     "START WITH … CONNECT BY", 43),
    ("SELECT * FROM (SELECT id FROM t START WITH parent IS NULL CONNECT BY PRIOR id = parent) AS h",
     "START WITH … CONNECT BY", 44),
])
def test_connect_by_is_refused_with_where(sql, clause, column, dialect) -> None:
    """The position is that of the first column of the condition (sqlglot keeps none for the
    keywords): START WITH's, else CONNECT BY's."""
    with pytest.raises(InvalidStatementError) as error:
        prism_lineage.explain(sql, SCHEMA, dialect=dialect)
    assert error.value.message.startswith(f"{clause} (a hierarchical query) is not read")
    assert "WITH RECURSIVE" in error.value.message
    assert (error.value.line, error.value.column) == (1, column)


def test_the_cli_refuses_with_exit_6_and_the_position(tmp_path, capsys) -> None:
    query = tmp_path / "q.sql"
    query.write_text("SELECT 1;\nSELECT id FROM t\nSTART WITH parent IS NULL CONNECT BY PRIOR id = parent\n")
    schema = tmp_path / "schema.yaml"
    schema.write_text("t: {id: int, parent: int}\n")
    assert main(["explain", str(query), "--schema", str(schema), "-d", "snowflake"]) == 6
    err = capsys.readouterr().err
    assert "CONNECT BY (a hierarchical query) is not read" in err and "line 3, column 12" in err
    assert "Traceback" not in err
