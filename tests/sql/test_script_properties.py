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
    assert_last_answer_is_the_ctes(script, with_ctes, schema, dialect)


def assert_last_answer_is_the_ctes(script: str, with_ctes: str, schema: dict, dialect: str) -> None:
    through = answer_or_error(script, schema, dialect, through_script=True)
    single = answer_or_error(with_ctes, schema, dialect)
    if isinstance(single, str) or isinstance(through, str):
        assert through == single, f"{script}\n---\n{with_ctes}"
        return
    last, only = through["statements"][-1], single["statements"][0]
    assert last["fields"] == only["fields"], f"{script}\n---\n{with_ctes}"
    assert {u["field"] for u in last["uncertain"]} == {u["field"] for u in only["uncertain"]}


@st.composite
def renaming_scripts(draw) -> tuple[dict, list[tuple[str, str, str, list[str]]], str, str]:
    """Temp tables as above, each maybe renamed (``ALTER TABLE … RENAME TO``) and its first
    column maybe renamed (``RENAME COLUMN``); later queries read them by their new names."""
    world = draw(worlds())
    dialect = draw(st.sampled_from(DIALECTS))
    steps: list[tuple[str, str, str, list[str]]] = []
    for i in range(draw(st.integers(1, 3))):
        body, width = QueryWriter(draw, world, dialect).select(1)
        name = f"r{i}" if draw(st.booleans()) else f"w{i}"
        columns = [f"o{j}" for j in range(width)]
        if draw(st.booleans()):
            columns[0] = f"p{i}"
        steps.append((f"w{i}", name, body, columns))
        world = replace(world, tables={**world.tables, name: tuple(columns)})
    final, _ = QueryWriter(draw, world, dialect).select(1)
    return world.schema, steps, final, dialect


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(renaming_scripts())
def test_renames_through_the_script_equal_the_renamed_ctes(case) -> None:
    """A temp table renamed by ALTER (table and column) is read, through the script, like a
    CTE of that name whose query renames the column."""
    schema, steps, final, dialect = case
    script, ctes = [], []
    for created, name, body, columns in steps:
        script.append(f"CREATE TEMP TABLE {created} AS {body};")
        if name != created:
            script.append(f"ALTER TABLE {created} RENAME TO {name};")
        if columns[0] != "o0":
            script.append(f"ALTER TABLE {name} RENAME COLUMN o0 TO {columns[0]};")
        renamed = ", ".join(f"o{j} AS {c}" for j, c in enumerate(columns))
        ctes.append(f"{name} AS (SELECT {renamed} FROM ({body}) AS q)")
    script_text = "\n".join(script) + "\n" + final
    with_ctes = "WITH " + ", ".join(ctes) + " " + final
    assert_last_answer_is_the_ctes(script_text, with_ctes, schema, dialect)
