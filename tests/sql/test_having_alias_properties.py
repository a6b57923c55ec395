"""A bare name in HAVING that is both a select alias and an input column (field trial 27;
specs/aggregate.md rule 7, prism_lineage/frontends/sql/select.py ``SelectState.having_alias``).

DuckDB is the oracle: each generated query is run as written and as both explicit readings —
``HAVING <the alias's expression> > k`` and ``HAVING <the column> > k`` (valid only where the
column is grouped) — on data where the two readings keep different groups, so which one DuckDB
took is known.  The control sources the engine answers (exactly) must be what that reading reads.
"""

from __future__ import annotations

import duckdb
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import prism_lineage

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
COLUMNS = ("g", "a", "b", "c")


@st.composite
def cases(draw):
    name = draw(st.sampled_from(COLUMNS[1:]))  # the alias, also a column of t
    measure = draw(st.sampled_from(COLUMNS[1:]))
    function = draw(st.sampled_from(["sum", "max", "min"]))
    grouped = draw(st.booleans())  # GROUP BY g, <name>: then the name is a grouped column
    rows = draw(st.lists(st.tuples(*(st.integers(0, 9) for _ in COLUMNS)), min_size=2, max_size=8))
    threshold = draw(st.integers(0, 12))
    keys = f"g, {name}" if grouped else "g"
    sql = f"SELECT g, {function}({measure}) AS {name} FROM t GROUP BY {keys} HAVING {name} > {threshold}"
    as_alias = f"SELECT g, {function}({measure}) AS {name} FROM t GROUP BY {keys} HAVING {function}({measure}) > {threshold}"
    as_column = f"SELECT g, {function}({measure}) AS {name} FROM t GROUP BY {keys} HAVING t.{name} > {threshold}"
    return sql, as_alias, as_column, name, measure, grouped, rows


def _run(connection, sql):
    try:
        return sorted(connection.execute(sql).fetchall())
    except duckdb.Error:
        return None


@SETTINGS
@given(cases())
def test_having_reads_what_duckdb_reads(case) -> None:
    sql, as_alias, as_column, name, measure, grouped, rows = case
    connection = duckdb.connect()
    connection.execute(f"CREATE TABLE t ({', '.join(f'{c} INT' for c in COLUMNS)})")
    connection.executemany(f"INSERT INTO t VALUES ({', '.join('?' for _ in COLUMNS)})", rows)
    got, alias_rows, column_rows = _run(connection, sql), _run(connection, as_alias), _run(connection, as_column)
    assume(got is not None and alias_rows != column_rows)  # the readings must be told apart
    [statement] = prism_lineage.explain(sql, {"t": {c: "int" for c in COLUMNS}}, dialect="duckdb").statements
    field = statement.fields[0]
    control = {s.column.rpartition(".")[2] for s in field.sources if s.relationship == "control"}
    assert all(s.confidence == "exact" for s in field.sources), sql
    if got == alias_rows:
        assert control == {measure}, f"{sql}: DuckDB reads the alias ({measure}), the engine says {control}"
    else:
        assert got == column_rows
        assert control == {name}, f"{sql}: DuckDB reads the column {name}, the engine says {control}"
    if not grouped:
        assert got == alias_rows, f"{sql}: an ungrouped column is never what DuckDB reads"
