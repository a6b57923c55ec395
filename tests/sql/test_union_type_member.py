"""DuckDB's UNION type: a member read as ``u.num`` (field trial 65), DuckDB the oracle."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage

SCHEMA = {"tbl1": {"u": "UNION(num INTEGER, str VARCHAR)"}}


@pytest.mark.parametrize("sql, member", [
    ("SELECT sum(u.num) AS s FROM tbl1", "num"),
    ("SELECT tbl1.u.str FROM tbl1", "str"),
    ("SELECT u.str AS s FROM tbl1 WHERE u.num IS NULL", "str"),
])
def test_a_union_member_is_read_at_its_path(sql: str, member: str) -> None:
    connection = duckdb.connect()
    connection.execute("CREATE TABLE tbl1 (u UNION(num INTEGER, str VARCHAR)); INSERT INTO tbl1 VALUES (1), ('x')")
    names = [d[0] for d in connection.execute(sql).description]
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in answer.fields] == names
    [value] = [s for s in answer.fields[0].sources if s.relationship == "value"]
    assert (value.column, value.path, value.confidence) == ("tbl1.u", f"u.{member}", "exact")


def test_a_member_the_union_does_not_have_is_an_error() -> None:
    with pytest.raises(prism_lineage.PrismError):
        prism_lineage.explain("SELECT u.nope FROM tbl1", SCHEMA, dialect="duckdb")
