"""Property tests: the same meaning written two ways gives the same answer (issue 9, items 5
and 11; set operations: tests/sql/test_set_operation_properties.py).

Each test writes a random query in two spellings that mean the same rows and values, and
requires the two answers to be equal field for field (or to differ only where the spellings
differ in what the result shows: the order of a derived table is not the result's):

* **derived order** — wrapping a query in a derived table keeps every source but the sort
  ones (a derived table's order is not the statement's); a row-selecting ORDER BY … LIMIT
  gives control lineage either way; an ORDER BY without a limit inside a derived table adds
  nothing; a derived table and a CTE explain alike;
* **outer-join filters** — a filter on the padded side of a LEFT/RIGHT JOIN written inside a
  derived table, or in ON;
* **sort keys** — ``ORDER BY <aggregate or expression>`` and ``ORDER BY <its alias>``.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prism_lineage
from test_properties import QueryWriter, worlds

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DIALECTS = ("duckdb", "postgres", "snowflake", "bigquery")

# explain() raises the recursion limit on first use; do it before hypothesis watches it.
prism_lineage.explain("SELECT 1")


def fields(sql: str, schema, dialect: str, *, drop: frozenset[str] = frozenset()) -> list | None:
    """Each field's name and sources (without the relationship kinds in ``drop``), or None when
    the engine refuses the query (the grammar may write one a dialect cannot read)."""
    try:
        answer = prism_lineage.explain(sql, schema=schema, dialect=dialect).model_dump()
    except prism_lineage.PrismError:
        return None
    statement = answer["statements"][0]
    return [(f["name"].lower(), [s for s in f["sources"] if s["relationship"] not in drop]) for f in statement["fields"]]


@st.composite
def queries(draw):
    world = draw(worlds())
    dialect = draw(st.sampled_from(DIALECTS))
    writer = QueryWriter(draw, world, dialect)
    sql, width = writer.select(1)
    return world, dialect, sql, width


@SETTINGS
@given(queries())
def test_a_derived_table_keeps_every_source_but_the_order(case) -> None:
    world, dialect, sql, width = case
    columns = ", ".join(f"d.o{i}" for i in range(width))
    wrapped = f"SELECT {columns} FROM ({sql}) AS d"
    direct = fields(sql, world.schema, dialect, drop=frozenset({"sort"}))
    inside = fields(wrapped, world.schema, dialect)
    if direct is None or inside is None:
        return
    assert inside == direct, wrapped
    assert not any(s["relationship"] == "sort" for _, sources in inside for s in sources), wrapped


@SETTINGS
@given(queries(), st.data())
def test_an_order_without_a_limit_in_a_derived_table_adds_nothing(case, data) -> None:
    world, dialect, sql, width = case
    if " ORDER BY " in sql:
        return
    key = data.draw(st.sampled_from([f"o{i}" for i in range(width)] + ["1"]), label="key")
    columns = ", ".join(f"d.o{i}" for i in range(width))
    plain = fields(f"SELECT {columns} FROM ({sql}) AS d", world.schema, dialect)
    ordered = fields(f"SELECT {columns} FROM ({sql} ORDER BY {key}) AS d", world.schema, dialect)
    if plain is None or ordered is None:
        return
    assert ordered == plain, sql


@SETTINGS
@given(queries(), st.integers(1, 9), st.sampled_from(("derived", "cte", "in")))
def test_a_top_n_picks_rows_wherever_it_is_read(case, count, where) -> None:
    """``ORDER BY k LIMIT n`` gives control lineage from ``k`` to what reads it, as a derived
    table, as a CTE or as an IN (…) subquery; never sort."""
    world, dialect, sql, width = case
    if " ORDER BY " in sql:
        return
    top = f"{sql} ORDER BY o0 DESC LIMIT {count}"
    columns = ", ".join(f"d.o{i}" for i in range(width))
    derived = fields(f"SELECT {columns} FROM ({top}) AS d", world.schema, dialect)
    if where == "cte":
        other = fields(f"WITH d AS ({top}) SELECT {columns} FROM d", world.schema, dialect)
    elif where == "in":
        table = sorted(world.schema)[0]
        column = next(iter(world.schema[table]))
        one = f"SELECT o0 FROM ({top}) AS q" if width > 1 else top
        other = fields(f"SELECT x.{column} FROM {table} AS x WHERE x.{column} IN ({one})", world.schema, dialect)
        derived = fields(f"SELECT x.{column} FROM {table} AS x WHERE x.{column} IN (SELECT d.o0 FROM ({top}) AS d)",
                         world.schema, dialect)
    else:
        other = fields(f"SELECT {columns} FROM ({top}) AS d", world.schema, dialect)
    unlimited = fields(f"SELECT {columns} FROM ({sql}) AS d", world.schema, dialect)
    if derived is None or other is None or unlimited is None:
        return
    assert other == derived, top
    for _, sources in derived:
        assert not any(s["relationship"] == "sort" for s in sources), top
    if where != "in":
        # The order key's own sources decide the rows: each is a control source (or a stronger
        # kind the unlimited query already had for it).
        controls = {s["column"] for _, sources in derived for s in sources if s["relationship"] == "control"}
        before = {s["column"] for _, sources in unlimited for s in sources if s["relationship"] == "control"}
        assert before <= controls, top


SHOP = {
    "a": {"id": "int", "k": "int", "x": "int", "y": "varchar"},
    "b": {"id": "int", "k": "int", "amount": "int", "status": "varchar", "ts": "int"},
}


@st.composite
def outer_joins(draw):
    dialect = draw(st.sampled_from(DIALECTS))
    padded = draw(st.sampled_from(("LEFT", "RIGHT")))
    predicates = draw(st.lists(st.sampled_from((
        "b.amount > 10", "b.status = 'paid'", "b.ts BETWEEN 1 AND 9", "b.amount + b.ts > 0",
        "b.status IN ('a', 'b')", "COALESCE(b.amount, 0) > b.ts",
    )), min_size=1, max_size=3, unique=True))
    items = draw(st.lists(st.sampled_from(("a.x", "a.y", "b.amount", "b.status", "a.x + b.ts", "COUNT(*)")),
                          min_size=1, max_size=3, unique=True))
    key = draw(st.sampled_from(("k", "id")))
    return dialect, padded, predicates, items, key


@SETTINGS
@given(outer_joins())
def test_a_filter_on_the_padded_side_means_the_same_inside_or_in_on(case) -> None:
    dialect, padded, predicates, items, key = case
    grouped = any("COUNT" in i for i in items)
    select = ", ".join(f"{item} AS c{i}" for i, item in enumerate(items))
    group = " GROUP BY " + ", ".join(i for i in items if "COUNT" not in i) if grouped and len(items) > 1 else ""
    inner = " AND ".join(p.replace("b.", "") for p in predicates)
    derived = f"(SELECT * FROM b WHERE {inner}) AS b"
    if padded == "LEFT":
        inside = f"SELECT {select} FROM a LEFT JOIN {derived} ON a.{key} = b.{key}{group}"
        on = f"SELECT {select} FROM a LEFT JOIN b ON a.{key} = b.{key} AND {' AND '.join(predicates)}{group}"
    else:
        inside = f"SELECT {select} FROM {derived} RIGHT JOIN a ON a.{key} = b.{key}{group}"
        on = f"SELECT {select} FROM b RIGHT JOIN a ON a.{key} = b.{key} AND {' AND '.join(predicates)}{group}"
    first, second = fields(inside, SHOP, dialect), fields(on, SHOP, dialect)
    assert first is not None and second is not None, (inside, on)
    assert first == second, (inside, on)


@st.composite
def sort_keys(draw):
    dialect = draw(st.sampled_from(DIALECTS))
    grouped = draw(st.booleans())
    if grouped:
        expr = draw(st.sampled_from(("SUM(amount)", "MAX(ts) - MIN(ts)", "COUNT(DISTINCT status)", "AVG(amount + ts)")))
    else:
        expr = draw(st.sampled_from(("amount", "amount + ts", "LOWER(status)", "CASE WHEN ts > 0 THEN amount END",
                                     "COALESCE(amount, ts)")))
    limit = draw(st.sampled_from(("", " LIMIT 5")))
    return dialect, grouped, expr, draw(st.booleans()), limit


@SETTINGS
@given(sort_keys())
def test_ordering_by_an_expression_or_by_its_alias_is_the_same(case) -> None:
    dialect, grouped, expr, descending, limit = case
    direction = " DESC" if descending else ""
    group = " GROUP BY k" if grouped else ""
    by_expr = f"SELECT k, {expr} AS e FROM b{group} ORDER BY {expr}{direction}{limit}"
    by_alias = f"SELECT k, {expr} AS e FROM b{group} ORDER BY e{direction}{limit}"
    first, second = fields(by_expr, SHOP, dialect), fields(by_alias, SHOP, dialect)
    assert first is not None and second is not None, by_expr
    assert first == second, (by_expr, by_alias)
    # The order is by the key's value: its sort sources have the value's transformation.
    value = {s["column"]: s["transformation"] for s in first[1][1] if s["relationship"] == "value"}
    sort = {s["column"]: s["transformation"] for s in first[1][1] if s["relationship"] == "sort"}
    assert sort == value, by_expr
