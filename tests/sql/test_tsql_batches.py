"""T-SQL ``GO`` batch separators (specs/parsing.md, "T-SQL batches"; golden script/tsql_go_batches).

A ``GO`` line cuts a script into batches: each statement is answered, a procedure's body ends
with its batch, positions are those of the whole text, and ``--jobs`` cuts there too.
"""

from __future__ import annotations

import json

import pytest

import prism_lineage
from prism_lineage.cli import batch, main
from prism_lineage.frontends.sql.dialects import get_dialect

SCHEMA = {"dbo.t": {"id": "int", "a": "int"}, "dbo.s": {"id": "int", "c": "int"}}

SCRIPT = """CREATE PROCEDURE dbo.p AS
BEGIN
  INSERT INTO dbo.s (id, c) SELECT id, a FROM dbo.t;
END
GO
SELECT c FROM dbo.s
  go 3  -- three times
INSERT INTO dbo.t (id, a) SELECT id, c FROM dbo.s
GO
"""


def _explain(sql: str):
    return prism_lineage.explain(sql, schema=SCHEMA, dialect="tsql")


def test_each_batch_is_read_and_a_body_ends_with_its_batch() -> None:
    answer = _explain(SCRIPT)
    assert [(s.kind, s.target, s.procedure) for s in answer.statements] == [
        ("create_procedure", None, None), ("insert", "dbo.s", "dbo.p"), ("select", None, None),
        ("insert", "dbo.t", None)]
    assert answer.statements[0].uncertain == []  # no "END GO" read as a statement of the body


def test_the_same_statements_without_go_in_one_batch_each() -> None:
    with_go = _explain("SELECT id FROM dbo.t\nGO\nSELECT c FROM dbo.s\nGO\n").model_dump()
    plain = _explain("SELECT id FROM dbo.t;\nSELECT c FROM dbo.s;").model_dump()
    assert with_go == plain


@pytest.mark.parametrize("text", [
    "SELECT 'x\nGO\n' AS v, id FROM dbo.t",  # inside a string
    "SELECT id /* a\nGO\n */ FROM dbo.t",  # inside a comment
    "SELECT id FROM dbo.t -- GO\n",  # in a line comment
    "SELECT id, [odd\nGO\nname] = 1 FROM dbo.t",  # inside a quoted identifier
])
def test_go_inside_a_string_or_comment_is_no_separator(text: str) -> None:
    answer = _explain(text)
    assert len(answer.statements) == 1
    ids = [f for f in answer.statements[0].fields if f.name == "id"]
    assert [s.column for s in ids[0].sources] == ["dbo.t.id"]


def test_positions_and_errors_are_those_of_the_whole_text() -> None:
    with pytest.raises(prism_lineage.PrismError) as error:
        _explain("SELECT id FROM dbo.t\nGO\nSELECT\n  zz FROM dbo.s\n")
    assert "line 4" in str(error.value)
    with pytest.raises(prism_lineage.PrismError) as error:
        _explain("SELECT id FROM dbo.t\nGO\nSELECT 'open FROM dbo.s\n")
    assert "unterminated string" in str(error.value) and "line 3, column 8" in str(error.value)


def test_go_is_no_separator_in_other_dialects_or_within_a_line() -> None:
    assert len(_explain("SELECT id AS go FROM dbo.t").statements) == 1
    with pytest.raises(prism_lineage.PrismError):
        prism_lineage.explain("SELECT 1\nGO\nSELECT 2", dialect="postgres")


@pytest.mark.parametrize("block", [1, 7, 40, 4000])
def test_jobs_cut_at_the_batches(block: int) -> None:
    units = list(batch.split_statements(SCRIPT, "s.sql", get_dialect("tsql"), block_chars=block))
    assert [u.line for u in units] == [1, 6, 8]
    assert "END" in units[0].text and "SELECT c FROM dbo.s" not in units[0].text


def test_jobs_answer_as_the_whole_script(capsys, tmp_path) -> None:
    path = tmp_path / "log.sql"
    path.write_text(SCRIPT, encoding="utf-8")
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
    assert main(["explain", str(path), "--schema", str(schema), "-d", "tsql", "--jobs", "2", "-o", "json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["index"], r["line"], r["kind"]) for r in records] == [
        (0, 1, "create_procedure"), (1, 1, "insert"), (2, 6, "select"), (3, 8, "insert")]
