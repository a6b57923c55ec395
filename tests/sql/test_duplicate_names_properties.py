"""DuckDB renames the duplicate output names of a derived table, CTE or created table (field
trial 30; prism_lineage/frontends/sql/renaming.py ``stored_names``).

DuckDB is the oracle: each generated inner query selects columns of two tables sharing names
(and maybe an alias that collides with a renamed one); the outer query reads it through ``*``,
a CTE, or by the names DuckDB gave.  Every column holds values no other column holds, so the
engine's names and exact value sources must be DuckDB's, position by position.
"""

from __future__ import annotations

import re

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prism_lineage
from prism_lineage.errors import AmbiguousColumnError

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TABLES = {"t1": ("id", "a", "b"), "t2": ("id", "a", "c")}
VALUES = {("t1", "id"): 1, ("t1", "a"): 10, ("t1", "b"): 11, ("t2", "id"): 1, ("t2", "a"): 20, ("t2", "c"): 21}


@st.composite
def cases(draw):
    items = draw(st.lists(st.sampled_from(["t1.id", "t1.a", "t2.a", "t2.id", "t1.b", "7 AS a_1", "8 AS A", "*"]),
                          min_size=1, max_size=5))
    inner = f"SELECT {', '.join(items)} FROM t1 JOIN t2 ON t1.id = t2.id"
    form = draw(st.sampled_from(["derived", "cte", "ctas"]))
    return form, inner


@SETTINGS
@given(cases())
def test_names_of_a_derived_relation_are_duckdbs(case) -> None:
    form, inner = case
    connection = duckdb.connect()
    for table, columns in TABLES.items():
        connection.execute(f"CREATE TABLE {table} ({', '.join(f'{c} INT' for c in columns)})")
        connection.execute(f"INSERT INTO {table} VALUES ({', '.join(str(VALUES[table, c]) for c in columns)})")
    schema = {table: {c: "int" for c in columns} for table, columns in TABLES.items()}
    sql = {"derived": f"SELECT * FROM ({inner}) AS s", "cte": f"WITH s AS ({inner}) SELECT * FROM s",
           "ctas": f"CREATE TABLE z AS {inner}"}[form]
    connection.execute(sql)
    if form == "ctas":
        cursor = connection.execute("SELECT * FROM z")
    else:
        cursor = connection.execute(sql)
    names = [d[0] for d in cursor.description]
    [row] = cursor.fetchall()
    [statement] = prism_lineage.explain(sql, schema, dialect="duckdb").statements
    assert [f.name for f in statement.fields] == names, sql
    for position, field in enumerate(statement.fields):
        value = [s for s in field.sources if s.relationship == "value"]
        if not value:
            assert row[position] in (7, 8), f"{sql}: {field.name} has no source, DuckDB gives {row[position]}"
            continue
        [source] = value
        assert source.confidence == "exact"
        table, _, column = source.column.partition(".")
        assert VALUES[table, column] == row[position], f"{sql}: {field.name} said {source.column}"
    # Each renamed name reads the column DuckDB gives it.
    if form != "ctas":
        for position, name in enumerate(names):
            query = sql.replace("SELECT * FROM", f'SELECT "{name}" FROM', 1) if form == "derived" else \
                sql[: sql.rindex("SELECT * FROM s")] + f'SELECT "{name}" FROM s'
            [got] = connection.execute(query).fetchone()
            [statement] = prism_lineage.explain(query, schema, dialect="duckdb").statements
            value = [s for s in statement.fields[0].sources if s.relationship == "value"]
            if value:
                table, _, column = value[0].column.partition(".")
                assert VALUES[table, column] == got, f"{query}: said {value[0].column}, DuckDB gives {got}"


# --- SQLite renames too (``a:1``), measured with the sqlite3 module as the oracle -------------------

@SETTINGS
@given(cases())
def test_names_of_a_derived_relation_are_sqlites(case) -> None:
    import sqlite3

    form, inner = case
    inner = inner.replace("7 AS a_1", '7 AS "a:1"')
    connection = sqlite3.connect(":memory:")
    for table, columns in TABLES.items():
        connection.execute(f"CREATE TABLE {table} ({', '.join(f'{c} INT' for c in columns)})")
        connection.execute(f"INSERT INTO {table} VALUES ({', '.join(str(VALUES[table, c]) for c in columns)})")
    schema = {table: {c: "int" for c in columns} for table, columns in TABLES.items()}
    sql = {"derived": f"SELECT * FROM ({inner}) AS s", "cte": f"WITH s AS ({inner}) SELECT * FROM s",
           "ctas": f"CREATE TABLE z AS {inner}"}[form]
    cursor = connection.execute(sql)
    if form == "ctas":
        cursor = connection.execute("SELECT * FROM z")
    names = [d[0] for d in cursor.description]
    [row] = cursor.fetchall()
    [statement] = prism_lineage.explain(sql, schema, dialect="sqlite").statements
    ours = [f.name for f in statement.fields]
    # After a fourth try SQLite numbers a name at random: we leave it as written.
    random = [i for i, n in enumerate(names) if re.fullmatch(r".*:([5-9]|[0-9]{2,})", n)]
    stem = lambda n: re.sub(r":[0-9]+$", "", n).lower()  # noqa: E731
    assert all(stem(names[i]) == stem(ours[i]) for i in random), sql
    assert [n for i, n in enumerate(ours) if i not in random] == \
        [n for i, n in enumerate(names) if i not in random], sql
    for position, field in enumerate(statement.fields):
        value = [s for s in field.sources if s.relationship == "value"]
        if not value:
            assert row[position] in (7, 8), f"{sql}: {field.name} has no source, SQLite gives {row[position]}"
            continue
        [source] = value
        table, _, column = source.column.partition(".")
        assert VALUES[table, column] == row[position], f"{sql}: {field.name} said {source.column}"
    if form != "ctas":
        for name in dict.fromkeys(n.lower() for i, n in enumerate(names) if i not in random):
            query = sql.replace("SELECT * FROM", f'SELECT "{name}" FROM', 1) if form == "derived" else \
                sql[: sql.rindex("SELECT * FROM s")] + f'SELECT "{name}" FROM s'
            [got] = connection.execute(query).fetchone()
            if sum(1 for n in ours if n.lower() == name) > 1:  # left duplicated: refused, never a guess
                with pytest.raises(AmbiguousColumnError):
                    prism_lineage.explain(query, schema, dialect="sqlite")
                continue
            [statement] = prism_lineage.explain(query, schema, dialect="sqlite").statements
            value = [s for s in statement.fields[0].sources if s.relationship == "value"]
            if value:
                table, _, column = value[0].column.partition(".")
                assert VALUES[table, column] == got, f"{query}: said {value[0].column}, SQLite gives {got}"


# --- elsewhere a reference to a duplicated name is an error: refused, never the first, exact -------

# Postgres "column reference "a" is ambiguous"; Spark AMBIGUOUS_REFERENCE; Snowflake "ambiguous
# column name"; BigQuery "Column name a is ambiguous"; Trino "Column 'a' is ambiguous"; Oracle
# ORA-00918; T-SQL "The column 'a' was specified multiple times"; MySQL "Duplicate column name"
# (of the derived table itself).
REFUSING = ["postgres", "spark", "databricks", "snowflake", "bigquery", "trino", "oracle", "tsql", "mysql", "redshift"]
DUPLICATED = [
    "SELECT x.a FROM (SELECT a, b AS a FROM t1) AS x",
    "SELECT a FROM (SELECT a, b AS a FROM t1) AS x",
    "WITH c AS (SELECT a, b AS a FROM t1) SELECT a FROM c",
    "SELECT a FROM (SELECT * FROM t1 JOIN t2 ON t1.id = t2.id) AS x",
    "SELECT x.a FROM (SELECT t1.a, t2.a FROM t1 JOIN t2 ON t1.id = t2.id) AS x",
]


@pytest.mark.parametrize("dialect", REFUSING)
@pytest.mark.parametrize("sql", DUPLICATED)
def test_a_duplicated_name_is_refused_where_the_engine_refuses_it(dialect: str, sql: str) -> None:
    schema = {table: {c: "int" for c in columns} for table, columns in TABLES.items()}
    with pytest.raises(AmbiguousColumnError):
        prism_lineage.explain(sql, schema, dialect=dialect)


@pytest.mark.parametrize("dialect", ["postgres", "snowflake", "bigquery"])
def test_names_that_only_look_alike_are_not_duplicates(dialect: str) -> None:
    """Postgres/Snowflake: a quoted name of another case is another column; any dialect: the
    other columns of a derived table with a duplicated name are read as usual."""
    schema = {table: {c: "int" for c in columns} for table, columns in TABLES.items()}
    [answer] = prism_lineage.explain("SELECT b FROM (SELECT a, a AS a2, b, id AS a FROM t1) AS x", schema,
                                     dialect=dialect).statements
    assert [(s.column, s.confidence) for s in answer.fields[0].sources] == [("t1.b", "exact")]
    if dialect == "postgres":
        [answer] = prism_lineage.explain('SELECT "A" FROM (SELECT a, b AS "A" FROM t1) AS x', schema,
                                         dialect=dialect).statements
        assert [s.column for s in answer.fields[0].sources] == ["t1.b"]
