"""The order of ``SELECT *`` over ``JOIN … USING`` / ``NATURAL JOIN`` (field trial 26;
specs/join.md, prism_lineage/frontends/sql/scope.py ``USING_STAR_ORDER``).

DuckDB is the oracle: it keeps the left side's columns in their own order (a join column where
the left side has it) and then the right side's others — not the standard's join-columns-first.
Each generated query runs over tables whose every column holds values no other column holds;
what the engine answers for each position (name, and exact value source) must be what DuckDB
returns there — which is what ``INSERT INTO o SELECT *`` and set operations pair by position.
"""

from __future__ import annotations

import duckdb
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prism_lineage

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NAMES = ("a", "b", "c", "d", "e")


@st.composite
def joins(draw):
    tables = {}
    for table in ("x", "y", "z")[: draw(st.integers(2, 3))]:
        tables[table] = draw(st.permutations(NAMES).map(lambda p: list(p)).flatmap(
            lambda p: st.integers(2, 4).map(lambda n: p[:n])))
    sql = "SELECT * FROM x"
    seen = list(tables["x"])
    for table in list(tables)[1:]:
        common = [c for c in tables[table] if c in seen]
        kind = draw(st.sampled_from(["JOIN", "LEFT JOIN", "FULL JOIN", "RIGHT JOIN"]))
        if common and draw(st.booleans()):
            using = draw(st.lists(st.sampled_from(common), min_size=1, max_size=len(common), unique=True))
            sql += f" {kind} {table} USING ({', '.join(using)})"
        else:
            sql += f" NATURAL {kind} {table}"
        seen += tables[table]
    return tables, sql


@SETTINGS
@given(joins())
def test_star_over_using_is_in_duckdbs_order(case) -> None:
    tables, sql = case
    connection = duckdb.connect()
    values = {}
    for table, columns in tables.items():
        # A column's value is its name's own, in every table: every join matches, and a value
        # tells which column (by name) stands at a position.
        values[table] = {c: 10 * (NAMES.index(c) + 1) for c in columns}
        connection.execute(f"CREATE TABLE {table} ({', '.join(f'{c} INT' for c in columns)})")
        connection.execute(f"INSERT INTO {table} VALUES ({', '.join(str(values[table][c]) for c in columns)})")
    try:
        cursor = connection.execute(sql)
    except duckdb.Error:
        return  # an ambiguous name, a NATURAL join with several candidates: nothing to compare
    names = [d[0] for d in cursor.description]
    schema = {table: {c: "int" for c in columns} for table, columns in tables.items()}
    [statement] = prism_lineage.explain(sql, schema, dialect="duckdb").statements
    assert [f.name for f in statement.fields] == names, sql
    rows = cursor.fetchall()
    if len(rows) != 1 or any(v is None for v in rows[0]):
        return
    for position, field in enumerate(statement.fields):
        value = [s for s in field.sources if s.relationship == "value"]
        if any(s.confidence != "exact" for s in value):
            continue
        candidates = {values[s.column.split(".")[0]][s.column.split(".")[1]] for s in value}
        assert rows[0][position] in candidates, f"{sql}: {field.name} said {[s.column for s in value]}"
