"""Property: a script's end-to-end answer (``through_script=True``) for its last statement equals
the answer for the same logic written as one statement with CTEs: temp tables ``w0``, ``w1`` …
created in turn, each reading base tables or the ones before it, then a final query.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prism_lineage
from test_properties import QueryWriter, worlds

DIALECTS = ("duckdb", "postgres", "snowflake", "bigquery")


@st.composite
def scripts(draw) -> tuple[dict, list[tuple[str, str]], str, str]:
    world = draw(worlds())
    dialect = draw(st.sampled_from(DIALECTS))
    steps: list[tuple[str, str]] = []
    for i in range(draw(st.integers(1, 3))):
        writer = QueryWriter(draw, world, dialect)
        body, width = writer.select(1)
        name = f"w{i}"
        steps.append((name, body))
        # Later queries may read this temp table like a table (its columns are o0, o1 …).
        world = replace(world, tables={**world.tables, name: tuple(f"o{j}" for j in range(width))})
    final, _ = QueryWriter(draw, world, dialect).select(1)
    return world.schema, steps, final, dialect


def answer_or_error(sql: str, schema: dict, dialect: str, **options):
    try:
        return prism_lineage.explain(sql, schema=schema, dialect=dialect, **options).model_dump()
    except prism_lineage.PrismError as error:
        return type(error).__name__


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts())
def test_script_through_equals_the_same_logic_with_ctes(case) -> None:
    schema, steps, final, dialect = case
    script = "".join(f"CREATE TEMP TABLE {name} AS {body};\n" for name, body in steps) + final
    with_ctes = "WITH " + ", ".join(f"{name} AS ({body})" for name, body in steps) + " " + final
    through = answer_or_error(script, schema, dialect, through_script=True)
    single = answer_or_error(with_ctes, schema, dialect)
    if isinstance(single, str) or isinstance(through, str):
        assert through == single, f"{script}\n---\n{with_ctes}"
        return
    last, only = through["statements"][-1], single["statements"][0]
    assert last["fields"] == only["fields"], f"{script}\n---\n{with_ctes}"
    assert {u["field"] for u in last["uncertain"]} == {u["field"] for u in only["uncertain"]}
