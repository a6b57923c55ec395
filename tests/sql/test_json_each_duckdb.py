"""DuckDB's ``json_each`` / ``json_tree`` (field trial 82, found replaying DuckDB's
test/sql/json/table/json_table_in_out_fullkey_quoting.test): they make key, value, type, atom,
id, parent, fullkey, path (DuckDB and SQLite document this table).  DuckDB's json_each was read
as Postgres' (key, value): two columns where DuckDB gives eight, exact, and ``fullkey`` refused;
json_tree was not analysed.  DuckDB names the columns."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage

SCHEMA = {"t": {"id": "int", "j": "json"}}


def _connection() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("""CREATE TABLE t (id INT, j JSON); INSERT INTO t VALUES (1, '{"a": 1, "b": [2, 3]}')""")
    return con


@pytest.mark.parametrize("sql", [
    """SELECT * FROM json_each('{"a": 1}')""",
    "SELECT t.id, e.* FROM t, json_each(t.j) AS e",
    "SELECT * FROM t, json_each(t.j, '$.b')",
    "SELECT * FROM t, json_tree(t.j)",
    "SELECT key, fullkey, path FROM t, json_tree(t.j, '$.b')",
])
def test_the_columns_duckdb_gives(sql: str) -> None:
    names = [d[0] for d in _connection().execute(sql).description]
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in answer.fields] == names
    assert not answer.uncertain


def test_every_column_reads_the_document_and_its_rows_depend_on_it() -> None:
    [answer] = prism_lineage.explain("SELECT e.value, e.fullkey, t.id FROM t, json_each(t.j) AS e", SCHEMA,
                                     dialect="duckdb").statements
    value, fullkey, id_ = ({(s.column, s.relationship, s.path or "") for s in f.sources} for f in answer.fields)
    assert ("t.j", "value", "j[]") in value
    assert ("t.j", "value", "") in fullkey
    assert ("t.j", "control", "") in id_


def test_under_a_path_or_in_a_tree_the_value_is_not_claimed_at_one_level() -> None:
    for sql in ("SELECT e.value FROM t, json_each(t.j, '$.b') AS e", "SELECT e.value FROM t, json_tree(t.j) AS e"):
        [answer] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
        assert {(s.column, s.path or "") for s in answer.fields[0].sources if s.relationship == "value"} == {
            ("t.j", "")}


def test_postgres_json_each_keeps_its_two_columns() -> None:
    [answer] = prism_lineage.explain("SELECT * FROM t, json_each(t.j) AS e", SCHEMA, dialect="postgres").statements
    assert [f.name for f in answer.fields] == ["id", "j", "key", "value"]
