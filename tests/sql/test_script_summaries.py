"""Through a script, the rows of a table an earlier statement wrote are resolved once for every
reader (lineage/through.py) instead of being walked again inside each reader's plan.  The two
must give the same answers, byte for byte: a property over generated scripts — chains of CREATE
TABLE AS, INSERT, UPDATE, MERGE, DELETE and views over each other, with filters, joins, ORDER BY
… LIMIT, aggregates, windows and recursive CTEs — and the cost of each statement must not
grow with the script before it (issue 15 item 14).
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import prism_lineage
from prism_lineage.explain import answer as answering
from prism_lineage.explain import explain_script, explain_statements, lower
from prism_lineage.functions import FunctionRegistry
from prism_lineage.lineage.graph import LineageGraph
from prism_lineage.lineage.through import ScriptSummaries
from test_properties import QueryWriter, worlds

DIALECTS = ("duckdb", "postgres", "snowflake", "bigquery")


def full_answers(statements, registry) -> list[dict]:
    """Every statement answered from its whole plan, earlier statements' plans included."""
    return [answering.answer_statement(s, LineageGraph.of(s, registry)).model_dump() for s in statements]


def summarised_answers(statements, registry) -> list[dict]:
    return [a.model_dump() for a in explain_statements(statements, registry).statements]


@st.composite
def scripts(draw) -> tuple[dict, str, str]:
    """A script over a random world: each step creates a table (CTAS, maybe with a recursive
    CTE) or a view from a random query over the tables so far, or writes into a table so far
    (INSERT of all or some columns, UPDATE with or without FROM, MERGE, DELETE); a final query
    reads them."""
    world = draw(worlds())
    dialect = draw(st.sampled_from(DIALECTS))
    created: dict[str, int] = {}  # script tables (not views) and their width
    declared = [name for name in sorted(world.schema)]
    steps: list[str] = []
    for i in range(draw(st.integers(2, 6))):
        kinds = ["create", "create", "view", "recursive"]
        if created or declared:
            kinds += ["insert", "insert_some", "update", "update_from", "merge", "delete"]
        kind = draw(st.sampled_from(kinds))
        writer = QueryWriter(draw, world, dialect)
        if kind in ("create", "view", "recursive"):
            name = f"w{i}"
            if kind == "recursive":
                body, _ = writer.select(1, width=1, ordered=False)
                query = (f"WITH RECURSIVE r(n) AS (SELECT o0 FROM ({body}) AS b UNION ALL "
                         f"SELECT n + 1 FROM r WHERE n < 3) SELECT n AS o0 FROM r")
                width = 1
            else:
                query, width = writer.select(1)
            if kind == "view":
                steps.append(f"CREATE VIEW {name} AS {query}")
            else:
                steps.append(f"CREATE TABLE {name} AS {query}")
                created[name] = width
            world = replace(world, tables={**world.tables, name: tuple(f"o{j}" for j in range(width))})
            continue
        target = draw(st.sampled_from(sorted(created) + declared))
        columns = list(world.tables[target])
        source = draw(st.sampled_from(sorted(world.tables)))
        source_columns = world.tables[source]
        if kind == "insert":
            query, _ = writer.select(1, width=len(columns))
            steps.append(f"INSERT INTO {target} {query}")
        elif kind == "insert_some":
            some = columns[: draw(st.integers(1, len(columns)))]
            query, _ = writer.select(1, width=len(some))
            steps.append(f"INSERT INTO {target} ({', '.join(some)}) {query}")
        elif kind == "update":
            column, other = draw(st.sampled_from(columns)), draw(st.sampled_from(columns))
            steps.append(f"UPDATE {target} SET {column} = {other} + 1 WHERE {draw(st.sampled_from(columns))} > "
                         f"{draw(st.integers(0, 5))}")
        elif kind == "update_from":
            column, key = draw(st.sampled_from(columns)), draw(st.sampled_from(columns))
            value, match = draw(st.sampled_from(source_columns)), draw(st.sampled_from(source_columns))
            steps.append(f"UPDATE {target} SET {column} = s.{value} FROM {source} AS s "
                         f"WHERE {target}.{key} = s.{match}")
        elif kind == "merge":
            column, key = draw(st.sampled_from(columns)), draw(st.sampled_from(columns))
            match = draw(st.sampled_from(source_columns))
            values = ", ".join(f"s.{draw(st.sampled_from(source_columns))}" for _ in columns)
            steps.append(f"MERGE INTO {target} AS m USING {source} AS s ON m.{key} = s.{match} "
                         f"WHEN MATCHED THEN UPDATE SET {column} = s.{match} "
                         f"WHEN NOT MATCHED AND s.{match} > 0 THEN INSERT ({', '.join(columns)}) VALUES ({values})")
        else:
            steps.append(f"DELETE FROM {target} WHERE {draw(st.sampled_from(columns))} > {draw(st.integers(0, 5))}")
    final, _ = QueryWriter(draw, world, dialect).select(1)
    return world.schema, ";\n".join(steps + [final]), dialect


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts())
def test_summarised_rows_answer_as_the_whole_plan(case) -> None:
    schema, sql, dialect = case
    registry = FunctionRegistry.default()
    try:
        statements = lower(sql, schema, dialect, functions=registry, through_script=True)
    except prism_lineage.PrismError as error:
        event(f"refused: {type(error).__name__}")
        return  # a typed error is a fine answer to a script the grammar got wrong
    event(f"summarised rows read: {min(reads_through(statements), 3)}")
    full = full_answers(statements, registry)
    assert summarised_answers(statements, registry) == full, sql
    # Statement by statement (``explain_script``, batch mode) the summaries are made as the
    # statements come.
    stepwise = [a.model_dump() for a in explain_script(sql, schema, dialect, through_script=True)]
    assert stepwise == full, sql


def reads_through(statements) -> int:
    """How many reads of a script's rows the statements make (each a summarised read)."""
    from prism_lineage.ir import CteRef, walk_relations

    return sum(1 for s in statements if s.root is not None
               for r in walk_relations(s.root) if isinstance(r, CteRef) and r.script)


CHAIN_SCHEMA = {"base": {"k": "int", "v": "int", "d": "int"}}


def chain(n: int) -> str:
    """A chain of ``n`` CREATE TABLE AS, each reading the one before (joined to the base table
    every third, ordered and limited every fifth, aggregated every seventh), then a query."""
    out = ["CREATE TABLE c0 AS SELECT k, v, d FROM base WHERE k > 0"]
    for i in range(1, n):
        if i % 3 == 0:
            query = f"SELECT c.k, c.v + b.v AS v, c.d FROM c{i - 1} AS c JOIN base AS b ON b.k = c.k"
        elif i % 5 == 0:
            query = f"SELECT k, v, d FROM c{i - 1} ORDER BY d LIMIT 100"
        elif i % 7 == 0:
            query = f"SELECT k, SUM(v) AS v, MAX(d) AS d FROM c{i - 1} GROUP BY k"
        else:
            query = f"SELECT k, v + 1 AS v, d FROM c{i - 1} WHERE d > {i}"
        out.append(f"CREATE TABLE c{i} AS {query}")
        if i % 11 == 0:
            out.append(f"INSERT INTO c{i} (k, v) SELECT k, v FROM base WHERE d < {i}")
        if i % 13 == 0:
            out.append(f"UPDATE c{i} SET d = 0 WHERE v > {i}")
    out.append(f"SELECT k, v, d FROM c{n - 1} ORDER BY v")
    return ";\n".join(out)


def test_a_long_chain_answers_as_the_whole_plan() -> None:
    registry = FunctionRegistry.default()
    statements = lower(chain(120), CHAIN_SCHEMA, "duckdb", functions=registry, through_script=True)
    full = full_answers(statements, registry)
    assert summarised_answers(statements, registry) == full
    last = full[-1]["fields"]
    assert {s["column"] for f in last for s in f["sources"]} == {"base.k", "base.v", "base.d"}


def test_each_statement_walks_its_own_plan_only() -> None:
    """What lineage walks for a statement of the chain is its own plan, the same at the 10th
    statement as at the 300th: the cost of a statement does not grow with the script."""
    registry = FunctionRegistry.default()
    statements = lower(chain(300), CHAIN_SCHEMA, "duckdb", functions=registry, through_script=True)
    summaries = ScriptSummaries(registry)
    walked = [len(LineageGraph.of(s, registry, summaries).edges) for s in statements]
    whole = [len(LineageGraph.of(s, registry).edges) for s in statements]
    # Statements of one shape (``WHERE d > i``, numbers 1, 2, 4, 8, 16 … never a multiple of
    # 3, 5, 7, 11 or 13 before them): the same number of edges early and late, while the whole
    # plan grows with the chain.
    early, late = statements_numbered(statements, 1), statements_numbered(statements, 289)
    assert walked[early] == walked[late]
    assert whole[late] > 50 * whole[early]


def statements_numbered(statements, table: int) -> int:
    """The index of the statement creating ``c<table>``."""
    return next(i for i, s in enumerate(statements) if s.target == f"c{table}")
