"""Column names given by position over columns nobody declared (specs/scan-project.md,
prism_lineage/frontends/sql/renaming.py).

``FROM (SELECT a, * FROM t) AS u(r, m)``, ``FROM t AS u(r)``, ``WITH c(r, m) AS (SELECT * …)``
with ``t`` read without a schema: a name stands for the column at its position, whatever that
is.  DuckDB is the oracle: it runs each generated query over a table whose every column holds
values no other column holds, so the column each output came from is known.  Whatever the
engine answers ``exact`` must be that column (or, with no source, a constant) — a name read
through the star as "t's column of that name" was the wrong answer this guards against.
"""

from __future__ import annotations

import duckdb
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prism_lineage

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TABLE_COLUMNS = ("a", "b", "m", "r", "x")
NEW_NAMES = ("r", "m", "x", "q")


@st.composite
def renamed_queries(draw):
    columns = draw(st.lists(st.sampled_from(TABLE_COLUMNS), min_size=1, max_size=4, unique=True))
    items = draw(st.lists(st.sampled_from(["*", "t.*", "7 AS k", *columns]), min_size=1, max_size=3))
    aliases = draw(st.lists(st.sampled_from(NEW_NAMES), min_size=1, max_size=3, unique=True))
    form = draw(st.sampled_from(["derived", "cte", "cte_ref", "table"]))
    names = ", ".join(aliases)
    inner = f"SELECT {', '.join(items)} FROM t"
    sql = {
        "derived": f"SELECT {names} FROM ({inner}) AS u({names})",
        "cte": f"WITH c({names}) AS ({inner}) SELECT {names} FROM c",
        "cte_ref": f"WITH c AS ({inner}) SELECT {names} FROM c AS u({names})",
        "table": f"SELECT {names} FROM t AS u({names})",
    }[form]
    return columns, sql


@SETTINGS
@given(renamed_queries())
def test_what_is_exact_is_the_column_at_that_position(case) -> None:
    columns, sql = case
    connection = duckdb.connect()
    # Column j holds 100(j+1) and 100(j+1)+1: every column's values are its own.
    values = {c: (100 * (j + 1), 100 * (j + 1) + 1) for j, c in enumerate(columns)}
    connection.execute(f"CREATE TABLE t ({', '.join(f'{c} INT' for c in columns)})")
    connection.execute("INSERT INTO t VALUES " + ", ".join(
        "(" + ", ".join(str(values[c][row]) for c in columns) + ")" for row in (0, 1)))
    try:
        result = connection.execute(sql + " ORDER BY ALL").fetchall()
    except duckdb.Error:
        return  # DuckDB refuses it (too many names, an ambiguous name): nothing to compare
    [statement] = prism_lineage.explain(sql, None, dialect="duckdb").statements
    assert len(statement.fields) == len(result[0])
    for position, field in enumerate(statement.fields):
        got = tuple(sorted(row[position] for row in result))
        value = [s for s in field.sources if s.relationship == "value"]
        if any(s.confidence != "exact" for s in value):
            continue  # said to be uncertain: any of what it lists
        if not value:
            assert got == (7, 7), f"{sql}: {field.name} has no source, but DuckDB gives {got}"
            continue
        [source] = value
        table, _, column = source.column.rpartition(".")
        assert table == "t" and column != "*", f"{sql}: {field.name} exact from {source.column}"
        assert got == values.get(column), f"{sql}: {field.name} said to be t.{column} exactly, DuckDB gives {got}"


@st.composite
def star_inserts(draw):
    columns = draw(st.lists(st.sampled_from(TABLE_COLUMNS), min_size=1, max_size=4, unique=True))
    items = draw(st.lists(st.sampled_from(["*", "7", *columns]), min_size=1, max_size=3))
    width = draw(st.integers(min_value=1, max_value=5))
    return columns, items, [f"w{i}" for i in range(width)]


@SETTINGS
@given(star_inserts())
def test_an_insert_of_a_star_and_columns_writes_what_duckdb_writes(case) -> None:
    """``INSERT INTO w SELECT *, 7 FROM t``: DuckDB needs a value per column of w, so the star's
    width follows from it; what is exact must be what DuckDB wrote there."""
    columns, items, written = case
    connection = duckdb.connect()
    values = {c: (100 * (j + 1), 100 * (j + 1) + 1) for j, c in enumerate(columns)}
    connection.execute(f"CREATE TABLE t ({', '.join(f'{c} INT' for c in columns)})")
    connection.execute("INSERT INTO t VALUES " + ", ".join(
        "(" + ", ".join(str(values[c][row]) for c in columns) + ")" for row in (0, 1)))
    connection.execute(f"CREATE TABLE w ({', '.join(f'{c} INT' for c in written)})")
    sql = f"INSERT INTO w SELECT {', '.join(items)} FROM t"
    try:
        connection.execute(sql)
    except duckdb.Error:
        return  # the widths do not match for this t: nothing to compare
    rows = connection.execute("SELECT * FROM w").fetchall()
    [statement] = prism_lineage.explain(sql, {"w": {c: "int" for c in written}}, dialect="duckdb").statements
    assert [f.name for f in statement.fields] == written
    for position, field in enumerate(statement.fields):
        got = tuple(sorted(row[position] for row in rows))
        value = [s for s in field.sources if s.relationship == "value"]
        if any(s.confidence != "exact" for s in value):
            continue
        if not value:
            assert got == (7, 7), f"{sql}: {field.name} has no source, but DuckDB wrote {got}"
            continue
        [source] = value
        column = source.column.rpartition(".")[2]
        assert got == values.get(column), f"{sql}: {field.name} said to be {source.column} exactly, DuckDB wrote {got}"
