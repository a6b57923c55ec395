"""DuckDB renames the duplicate output names of a derived table, CTE or created table (field
trial 30; prism_lineage/frontends/sql/renaming.py ``stored_names``).

DuckDB is the oracle: each generated inner query selects columns of two tables sharing names
(and maybe an alias that collides with a renamed one); the outer query reads it through ``*``,
a CTE, or by the names DuckDB gave.  Every column holds values no other column holds, so the
engine's names and exact value sources must be DuckDB's, position by position.
"""

from __future__ import annotations

import duckdb
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prism_lineage

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
