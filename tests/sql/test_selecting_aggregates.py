"""``MAX_BY(x, y [, n])`` and its spellings (field trial 28; specs/aggregate.md rule 4).

DuckDB is the oracle: every column holds values from its own range, so the column each output
value came from is known.  What the engine answers as value sources must hold every value DuckDB
returns (``y`` never does: it only picks which ``x`` is kept), and ``y`` — which decides the
answer — must be a sort source.
"""

from __future__ import annotations

import duckdb
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prism_lineage

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
COLUMNS = ("g", "a", "b", "c")
FUNCTIONS = ("max_by", "min_by", "arg_max", "arg_min", "arg_max_null", "arg_min_null")


def _range(column: str) -> range:
    base = 1000 * (COLUMNS.index(column) + 1)
    return range(base, base + 1000)


@st.composite
def cases(draw):
    function = draw(st.sampled_from(FUNCTIONS))
    x, y = draw(st.sampled_from(COLUMNS[1:])), draw(st.sampled_from(COLUMNS[1:]))
    count = draw(st.sampled_from(["", ", 2"])) if not function.endswith("_null") else ""
    grouped = draw(st.booleans())
    rows = draw(st.lists(st.tuples(*(st.sampled_from(_range(c)[:6]) for c in COLUMNS)), min_size=1, max_size=6))
    select = f"{function}({x}, {y}{count}) AS m"
    sql = f"SELECT g, {select} FROM t GROUP BY g" if grouped else f"SELECT {select} FROM t"
    return sql, x, y, rows


@SETTINGS
@given(cases())
def test_the_selecting_argument_is_sort_and_the_values_are_the_value_sources(case) -> None:
    sql, x, y, rows = case
    connection = duckdb.connect()
    connection.execute(f"CREATE TABLE t ({', '.join(f'{c} INT' for c in COLUMNS)})")
    connection.executemany(f"INSERT INTO t VALUES ({', '.join('?' for _ in COLUMNS)})", rows)
    result = connection.execute(sql).fetchall()
    [statement] = prism_lineage.explain(sql, {"t": {c: "int" for c in COLUMNS}}, dialect="duckdb").statements
    field = statement.fields[-1]
    value = {s.column.rpartition(".")[2] for s in field.sources if s.relationship == "value"}
    sort = {s.column.rpartition(".")[2] for s in field.sources if s.relationship == "sort"}
    assert all(s.confidence == "exact" for s in field.sources), sql
    got = set()
    for row in result:
        cell = row[-1]
        got.update(cell if isinstance(cell, list) else [cell])
    for v in got - {None}:
        assert any(v in _range(c) for c in value), f"{sql}: {v} is from none of the value sources {value}"
    assert value == {x}, f"{sql}: value sources {value}"
    assert y in sort, f"{sql}: {y} decides which {x} is kept but is not a sort source ({sort})"
