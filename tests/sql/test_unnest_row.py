"""DuckDB's ``unnest(ROW(a, b))`` / ``unnest((a, b))`` (field trial 81, found in DuckDB's
test/sql/function/nested/array_extract_unnamed_struct.test): an unnamed struct, whose fields
DuckDB names ``element1``, ``element2`` … — it was one column read as a list, conservative.
DuckDB names the columns; the engine oracle checks the exact sources' values."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage
from corpora.engine_oracle import check

SCHEMA = {"t": {"a": "int", "b": "int", "c": "varchar"}}


@pytest.mark.parametrize("sql", [
    "SELECT UNNEST(ROW(42, 84))",
    "SELECT UNNEST(ROW(a, b)) FROM t",
    "SELECT UNNEST((a, b)) AS z, c FROM t",
    "SELECT * FROM (SELECT UNNEST(ROW(a, b)) FROM t)",
    "SELECT UNNEST((a,)) FROM t",
    "SELECT UNNEST(ROW(a, (b, c))) FROM t",
])
def test_a_column_per_field_named_as_duckdb_names_it(sql: str) -> None:
    con = duckdb.connect()
    con.execute("CREATE TABLE t (a INT, b INT, c VARCHAR); INSERT INTO t VALUES (1, 2, 'x'), (3, 4, 'y')")
    names = [d[0] for d in con.execute(sql).description]
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in answer.fields] == names
    assert not answer.uncertain
    verdict = check(con, sql)
    assert verdict.refused is None and not verdict.problems, verdict


def test_each_field_is_its_value() -> None:
    [answer] = prism_lineage.explain("SELECT UNNEST(ROW(a, b)) FROM t", SCHEMA, dialect="duckdb").statements
    assert [[(s.column, s.transformation, s.confidence) for s in f.sources] for f in answer.fields] == [
        [("t.a", "identity", "exact")], [("t.b", "identity", "exact")]]
