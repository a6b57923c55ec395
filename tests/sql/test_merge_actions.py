"""MERGE actions and upserts checked against the engine that runs them (trials 59, 61, 62, 63).

Every column of every table holds values tagged with its own name (``s.a2``), so a value found in
the target after the statement shows which column it was copied from.  For each written column
whose value sources are all ``identity`` / ``exact``, every value the statement put there must be
a value of one of those columns; where the answer names an ``expression`` source instead, the
test says which table's column it must be (the row the action sees).
"""

from __future__ import annotations

import sqlite3

import duckdb
import pytest

import prism_lineage
from prism_lineage.errors import PrismError

SCHEMA = {
    "t": {"id": "int", "a": "varchar", "b": "varchar"},
    # The source lists b before a: whole-row actions by position and by name then differ.
    "s": {"id": "int", "b": "varchar", "a": "varchar"},
}
SETUP = [
    "create table t (id int primary key, a varchar, b varchar)",
    "insert into t values (1, 't.a1', 't.b1'), (2, 't.a2', 't.b2')",
    "create table s (id int, b varchar, a varchar)",
    "insert into s values (2, 's.b2', 's.a2'), (3, 's.b3', 's.a3')",
]


def _duckdb() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    for sql in SETUP:
        con.execute(sql)
    return con


def _sqlite() -> sqlite3.Connection:
    con = sqlite3.connect(":memory:")
    for sql in SETUP:
        con.execute(sql)
    return con


def _values(con, table: str, column: str) -> set[str]:
    return {row[0] for row in con.execute(f"select {column} from {table} where {column} is not null").fetchall()}


def _written(sql: str, dialect: str) -> dict[str, list]:
    answer = prism_lineage.explain(sql, schema=SCHEMA, dialect=dialect)
    (statement,) = answer.statements
    return {f.name: [s for s in f.sources if s.relationship == "value"] for f in statement.fields}


def _check_against(con, sql: str, dialect: str) -> dict[str, list]:
    """Run ``sql`` on ``con`` and check every identity/exact column of the answer against it."""
    fields = _written(sql, dialect)
    before = {(table, column): _values(con, table, column) for table, columns in SCHEMA.items() for column in columns
              if column != "id"}
    con.execute(sql)
    checked = 0
    for name, sources in fields.items():
        if name == "id" or not sources or any(s.transformation != "identity" or s.confidence != "exact"
                                              for s in sources):
            continue
        allowed = set().union(*(before[tuple(s.column.split("."))] for s in sources))
        new = _values(con, "t", name) - before[("t", name)]
        assert new <= allowed, f"t.{name} got {sorted(new - allowed)}, the answer says from {[s.column for s in sources]}"
        checked += 1
    assert checked, "nothing was checked"
    return fields


@pytest.mark.parametrize("sql", [
    "merge into t using s on s.id = t.id when matched then update set * when not matched then insert *",
    "merge into t using s on s.id = t.id when matched then update when not matched then insert",
    "merge into t using s on s.id = t.id when not matched then insert by position",
])
def test_duckdb_whole_row_actions_go_by_position(sql: str) -> None:
    fields = _check_against(_duckdb(), sql, "duckdb")
    assert [s.column for s in fields["a"]] == ["s.b"] and [s.column for s in fields["b"]] == ["s.a"]


def test_duckdb_insert_by_name_matches_names() -> None:
    fields = _check_against(_duckdb(), "merge into t using s on s.id = t.id when not matched then insert by name",
                            "duckdb")
    assert [s.column for s in fields["a"]] == ["s.a"]


def test_databricks_star_actions_go_by_name() -> None:
    # Delta Lake: UPDATE SET * / INSERT * set each target column from the source column of its name.
    fields = _written("merge into t using s on s.id = t.id when matched then update set * "
                      "when not matched then insert *", "databricks")
    assert [s.column for s in fields["a"]] == ["s.a"] and [s.column for s in fields["b"]] == ["s.b"]


def test_duckdb_using_columns_and_do_nothing() -> None:
    sql = ("merge into t using s using (id) when matched and s.a = 's.a2' then do nothing "
           "when matched then update set a = s.b when not matched then insert (id, a, b) values (id, a, b)")
    fields = _check_against(_duckdb(), sql, "duckdb")
    # The unqualified a and b of the NOT MATCHED insert are the source row's (the only row there).
    assert {s.column for s in fields["a"]} == {"s.a", "s.b"} and [s.column for s in fields["b"]] == ["s.b"]
    answer = prism_lineage.explain(sql, schema=SCHEMA, dialect="duckdb")
    controls = {s.column for f in answer.statements[0].fields for s in f.sources if s.relationship == "control"}
    assert controls == {"s.a"}  # DO NOTHING's condition decides which matched rows the update reaches


@pytest.mark.parametrize("dialect", ["duckdb", "postgres"])
def test_unqualified_names_are_the_rows_the_action_sees(dialect: str) -> None:
    sql = "merge into t using s on s.id = t.id when not matched then insert (id, a, b) values (id, a, b)"
    fields = _written(sql, dialect)
    assert [s.column for s in fields["a"]] == ["s.a"] and [s.column for s in fields["b"]] == ["s.b"]
    _check_against(_duckdb(), sql, "duckdb")
    by_source = "merge into t using s on s.id = t.id when not matched by source then update set a = a || '!'"
    assert [(s.column, s.transformation) for s in _written(by_source, dialect)["a"]] == [("t.a", "expression")]
    con = _duckdb()
    con.execute(by_source)
    assert _values(con, "t", "a") == {"t.a1!", "t.a2"}  # the target's own value, where the source has no row


def test_matched_actions_still_refuse_a_shared_unqualified_name() -> None:
    with pytest.raises(PrismError, match="ambiguous column 'a'"):
        prism_lineage.explain("merge into t using s on s.id = t.id when matched then update set b = a",
                              schema=SCHEMA, dialect="duckdb")


@pytest.mark.parametrize("engine", ["duckdb", "sqlite"])
def test_upsert_unqualified_name_is_the_existing_row(engine: str) -> None:
    sql = ("insert into t values (2, 'new.a', 'new.b') on conflict (id) do update "
           "set a = a || excluded.a where b = 't.b2'")
    fields = _written(sql, engine)
    assert {(s.column, s.transformation) for s in fields["a"]} == {("t.a", "expression")}
    con = _duckdb() if engine == "duckdb" else _sqlite()
    con.execute(sql)
    assert _values(con, "t", "a") == {"t.a1", "t.a2new.a"}


def test_postgres_upsert_still_refuses_the_ambiguous_name() -> None:
    # PostgreSQL itself: column reference "a" is ambiguous.
    with pytest.raises(PrismError, match="ambiguous column 'a'"):
        prism_lineage.explain("insert into t values (2, 'x', 'y') on conflict (id) do update set a = a || excluded.a",
                              schema=SCHEMA, dialect="postgres")


def test_bare_insert_outside_duckdb_is_refused_with_its_reason() -> None:
    with pytest.raises(PrismError, match="DuckDB's insert of the whole source row"):
        prism_lineage.explain("merge into t using s on s.id = t.id when not matched then insert",
                              schema=SCHEMA, dialect="postgres")
