"""ClickHouse ``LIMIT n BY keys`` (field trial 31; specs/sort-limit-distinct.md).

``SELECT … ORDER BY o LIMIT n BY k`` keeps what ``QUALIFY ROW_NUMBER() OVER (PARTITION BY k
ORDER BY o) <= n`` keeps (the first n rows of each group, in the order), so every field must have
the same sources, kind for kind, as that twin: the keys and the order decide which rows exist.
DuckDB (no LIMIT BY) cannot run the ClickHouse form; the twin is the reference instead.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prism_lineage

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
COLUMNS = ("a", "b", "c", "d")
SCHEMA = {"t": {c: "int" for c in COLUMNS}}


@st.composite
def cases(draw):
    selected = draw(st.lists(st.sampled_from(COLUMNS), min_size=1, max_size=3, unique=True))
    keys = draw(st.lists(st.sampled_from(COLUMNS + ("a + b",)), min_size=1, max_size=2, unique=True))
    order = draw(st.lists(st.sampled_from(COLUMNS), max_size=2, unique=True))
    count = draw(st.integers(1, 3))
    derived = draw(st.booleans())
    items = ", ".join(selected)
    order_by = f" ORDER BY {', '.join(order)}" if order else ""
    window = f"PARTITION BY {', '.join(keys)}" + (f" ORDER BY {', '.join(order)}" if order else "")
    limit_by = f"SELECT {items} FROM t{order_by} LIMIT {count} BY {', '.join(keys)}"
    twin = f"SELECT {items} FROM t QUALIFY ROW_NUMBER() OVER ({window}) <= {count}{order_by}"
    if derived:
        limit_by, twin = f"SELECT * FROM ({limit_by}) AS s", f"SELECT * FROM ({twin}) AS s"
    return limit_by, twin


def _sources(sql: str, dialect: str):
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect=dialect).statements
    return [(f.name, sorted({(s.column, s.relationship, s.confidence) for s in f.sources})) for f in statement.fields]


@SETTINGS
@given(cases())
def test_limit_by_answers_as_its_row_number_twin(case) -> None:
    limit_by, twin = case
    assert _sources(limit_by, "clickhouse") == _sources(twin, "duckdb"), f"{limit_by}  vs  {twin}"
