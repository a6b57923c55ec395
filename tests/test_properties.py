"""Property tests: random queries from a small grammar over random schemas.

For every generated query the engine either answers or raises a ``PrismError`` (never
anything else), and every answer satisfies the invariants of ``tests/invariants.py``: ids and
answers identical across two runs, every output field explained, every value source a column
the query names, no edge into a target that does not exist.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prism_lineage
from invariants import check_invariants

COLUMNS = ("id", "k", "amount", "status", "ts")

# explain() raises the recursion limit on first use; do it before hypothesis watches it.
prism_lineage.explain("SELECT 1")
DIALECTS = ("duckdb", "postgres", "snowflake", "bigquery")


@dataclass(frozen=True)
class World:
    """Tables and their columns; ``schema`` declares only some of them (the rest are read
    schema-less, so the query may name any column of them)."""

    tables: dict[str, tuple[str, ...]]
    schema: dict[str, dict[str, str]]


@st.composite
def worlds(draw) -> World:
    tables: dict[str, tuple[str, ...]] = {}
    schema: dict[str, dict[str, str]] = {}
    for i in range(draw(st.integers(1, 3))):
        columns = tuple(draw(st.lists(st.sampled_from(COLUMNS), min_size=2, max_size=5, unique=True)))
        tables[f"t{i}"] = columns
        if draw(st.booleans()) or i == 0:
            schema[f"t{i}"] = {c: "int" for c in columns}
    return World(tables, schema)


class QueryWriter:
    """Writes one random query; each SELECT aliases its items ``o0``, ``o1`` … so enclosing
    queries (CTEs, derived tables, set operations) know their names."""

    def __init__(self, draw, world: World, dialect: str):
        self.draw = draw
        self.world = world
        self.dialect = dialect
        self.aliases = 0

    def alias(self, prefix: str) -> str:
        self.aliases += 1
        return f"{prefix}{self.aliases}"

    # --- FROM -------------------------------------------------------------------------------

    def from_clause(self, depth: int) -> tuple[str, list[str], list[str]]:
        """(FROM text, column references in scope, WHERE conjuncts it needs)."""
        draw = self.draw
        refs: list[str] = []
        first, refs = self.from_item(depth)
        text = f"FROM {first}"
        conjuncts: list[str] = []
        if draw(st.booleans()):
            second, right = self.from_item(depth)
            kind = draw(st.sampled_from(("JOIN", "LEFT JOIN", "CROSS JOIN", ",")))
            if kind == "CROSS JOIN":
                text += f" CROSS JOIN {second}"
            elif kind == ",":
                text += f", {second}"
                conjuncts.append(f"{draw(st.sampled_from(refs))} = {draw(st.sampled_from(right))}")
            else:
                text += f" {kind} {second} ON {draw(st.sampled_from(refs))} = {draw(st.sampled_from(right))}"
            refs = refs + right
        return text, refs, conjuncts

    def from_item(self, depth: int) -> tuple[str, list[str]]:
        draw = self.draw
        alias = self.alias("a")
        if depth > 0 and draw(st.integers(0, 4)) == 0:
            inner, width = self.select(depth - 1)
            return f"({inner}) AS {alias}", [f"{alias}.o{i}" for i in range(width)]
        table = draw(st.sampled_from(sorted(self.world.tables)))
        return f"{table} AS {alias}", [f"{alias}.{c}" for c in self.world.tables[table]]

    # --- SELECT -------------------------------------------------------------------------------

    def select(self, depth: int, width: int | None = None, ordered: bool = True) -> tuple[str, int]:
        draw = self.draw
        from_text, refs, conjuncts = self.from_clause(depth)
        grouped = draw(st.integers(0, 3)) == 0
        width = width or draw(st.integers(1, 3))
        keys = draw(st.lists(st.sampled_from(refs), min_size=1, max_size=2, unique=True)) if grouped else []
        items = [self.grouped_item(refs, keys) if grouped else self.row_item(refs) for _ in range(width)]
        sql = "SELECT " + ", ".join(f"{item} AS o{i}" for i, item in enumerate(items)) + " " + from_text
        conjuncts += self.predicates(refs, depth)
        if conjuncts:
            sql += " WHERE " + " AND ".join(conjuncts)
        if grouped:
            sql += " GROUP BY " + ", ".join(keys)
            if draw(st.booleans()):
                sql += f" HAVING SUM({draw(st.sampled_from(refs))}) > 0"
        if ordered and draw(st.booleans()):
            sql += " ORDER BY " + draw(st.sampled_from(["1", "o0", *([] if grouped else refs)]))
            if draw(st.booleans()):
                sql += f" LIMIT {draw(st.integers(1, 10))}"
        return sql, width

    def row_item(self, refs: list[str]) -> str:
        draw = self.draw
        ref = lambda: draw(st.sampled_from(refs))  # noqa: E731
        return draw(st.sampled_from((
            lambda: ref(),
            lambda: f"{ref()} + {ref()}",
            lambda: "42",
            lambda: f"CASE WHEN {ref()} > 0 THEN {ref()} ELSE 0 END",
            lambda: f"COALESCE({ref()}, {ref()})",
            lambda: f"SUM({ref()}) OVER (PARTITION BY {ref()} ORDER BY {ref()})",
            lambda: f"ROW_NUMBER() OVER (ORDER BY {ref()})",
        )))()

    def grouped_item(self, refs: list[str], keys: list[str]) -> str:
        draw = self.draw
        return draw(st.sampled_from((
            lambda: draw(st.sampled_from(keys)),
            lambda: f"SUM({draw(st.sampled_from(refs))})",
            lambda: "COUNT(*)",
            lambda: f"MAX({draw(st.sampled_from(refs))}) - MIN({draw(st.sampled_from(refs))})",
            lambda: f"COUNT(DISTINCT {draw(st.sampled_from(refs))})",
        )))()

    def predicates(self, refs: list[str], depth: int) -> list[str]:
        draw = self.draw
        out = []
        for _ in range(draw(st.integers(0, 2))):
            choice = draw(st.integers(0, 3 if depth > 0 else 1))
            ref = draw(st.sampled_from(refs))
            if choice <= 1:
                out.append(f"{ref} > {draw(st.integers(0, 9))}")
            elif choice == 2:
                inner, _ = self.select(depth - 1, width=1)
                out.append(f"{ref} IN ({inner})")
            else:
                table = draw(st.sampled_from(sorted(self.world.tables)))
                alias = self.alias("s")
                column = draw(st.sampled_from(self.world.tables[table]))
                out.append(f"EXISTS (SELECT 1 FROM {table} AS {alias} WHERE {alias}.{column} = {ref})")
        return out

    # --- whole queries ------------------------------------------------------------------------

    def query(self) -> str:
        draw = self.draw
        shape = draw(st.sampled_from(("select", "set", "cte")))
        if shape == "set":
            left, width = self.select(1, ordered=False)
            right, _ = self.select(1, width=width, ordered=False)
            operator = draw(st.sampled_from(("UNION", "UNION ALL", "INTERSECT", "EXCEPT")))
            if self.dialect == "bigquery" and not operator.endswith("ALL"):
                operator += " DISTINCT"  # BigQuery spells the default out
            return f"{left} {operator} {right}"
        if shape == "cte":
            body, width = self.select(1)
            alias = self.alias("w")
            columns = ", ".join(f"{alias}.o{i}" for i in range(width))
            return f"WITH cte AS ({body}) SELECT {columns} FROM cte AS {alias} JOIN cte AS {alias}x " \
                   f"ON {alias}.o0 = {alias}x.o0"
        return self.select(2)[0]


@st.composite
def cases(draw) -> tuple[World, str, str]:
    world = draw(worlds())
    dialect = draw(st.sampled_from(DIALECTS))
    return world, QueryWriter(draw, world, dialect).query(), dialect


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_random_queries_satisfy_the_invariants(case) -> None:
    world, sql, dialect = case
    try:
        answer = check_invariants(sql, world.schema, dialect)
    except prism_lineage.PrismError:
        return  # a typed error is a fine answer to a query the grammar got wrong
    assert answer["statements"][0]["fields"]
