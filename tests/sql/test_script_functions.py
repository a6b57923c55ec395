"""Functions the script defines, inlined where they are called (specs/functions.md, "Functions
the script defines"; field trial 23).

Property: the same meaning written two ways gives the same answer — a call of a function the
script defined is answered exactly as its body written at the call, each parameter replaced by
the call's argument (scalar functions in every dialect spelling; table functions in FROM as
the derived table of their query).  DuckDB runs both forms of the generated macros and checks
they are the same SQL (the generator writes what it means).  The rest: what is not inlined is
unknown with its reason, never conservative from the arguments alone.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prism_lineage
from prism_lineage import FunctionInfo, FunctionRegistry

SCHEMA = {"t": {"id": "int", "a": "int", "x": "int"}, "s": {"id": "int", "c": "int"}}
PARAMS = ("p_a", "p_b")


def define(dialect: str, body: str) -> str:
    """``f(p_a, p_b)`` returning ``body``, as ``dialect`` writes a SQL function."""
    return {
        "bigquery": f"CREATE TEMP FUNCTION f(p_a INT64, p_b INT64) AS ({body});",
        "duckdb": f"CREATE MACRO f(p_a, p_b) AS ({body});",
        "databricks": f"CREATE TEMPORARY FUNCTION f(p_a INT, p_b INT) RETURNS INT RETURN {body};",
        "postgres": f"CREATE FUNCTION f(p_a int, p_b int) RETURNS int LANGUAGE sql AS $$ SELECT {body} $$;",
        "postgres-return": f"CREATE FUNCTION f(p_a int, p_b int) RETURNS int LANGUAGE sql RETURN {body};",
        "snowflake": f"CREATE FUNCTION f(p_a INT, p_b INT) RETURNS INT AS '{body}';",
    }[dialect]


@st.composite
def bodies(draw, depth: int = 0) -> str:
    leaves = [st.sampled_from(PARAMS), st.sampled_from(["1", "2", "10"])]
    if depth >= 2:
        return draw(st.one_of(*leaves))
    inner = bodies(depth + 1)
    form = draw(st.sampled_from(["leaf", "leaf", "add", "mul", "case", "coalesce", "scalar", "count"]))
    if form == "leaf":
        return draw(st.one_of(*leaves))
    if form in ("add", "mul"):
        return f"({draw(inner)} {'+' if form == 'add' else '*'} {draw(inner)})"
    if form == "case":
        return f"CASE WHEN {draw(inner)} > 0 THEN {draw(inner)} ELSE {draw(inner)} END"
    if form == "coalesce":
        return f"COALESCE({draw(inner)}, {draw(inner)})"
    key = draw(st.sampled_from(PARAMS + ("3",)))
    if form == "scalar":  # a subquery over another table, correlated with a parameter
        return f"(SELECT MAX(s.c) FROM s WHERE s.id = {key})"
    return f"(SELECT COUNT(*) FROM s WHERE s.c > {draw(inner)})"


ROW_ARGS = ["t.a", "t.id + 1", "7", "(SELECT MIN(s.id) FROM s)", "t.x"]
GROUP_ARGS = ["t.a", "t.a + 1", "5"]


@st.composite
def calls(draw) -> tuple[str, str, str]:
    """(dialect spelling, the script with the function, the same query with its body written)."""
    spelling = draw(st.sampled_from(["bigquery", "duckdb", "databricks", "postgres", "postgres-return",
                                     "snowflake"]))
    body = draw(bodies())
    form = draw(st.sampled_from(["select", "where", "grouped", "twice"]))
    pool = GROUP_ARGS if form == "grouped" else ROW_ARGS
    args = [draw(st.sampled_from(pool)) for _ in PARAMS]

    def call(arguments) -> tuple[str, str]:
        written = body
        for name, arg in zip(PARAMS, arguments):
            written = re.sub(rf"\b{name}\b", f"({arg})", written)
        return f"f({', '.join(arguments)})", f"({written})"

    (called, inline) = call(args)
    if form == "select":
        query = "SELECT t.id, {} AS o FROM t"
    elif form == "where":
        query = "SELECT t.id FROM t WHERE {} > 0"
    elif form == "grouped":
        query = "SELECT t.a, {} AS o, COUNT(*) AS n FROM t GROUP BY t.a"
    else:
        other_called, other_inline = call(list(reversed(args)))
        query = "SELECT {} AS o, {} AS o2 FROM t"
        return spelling, define(spelling, body) + "\n" + query.format(called, other_called), \
            query.format(inline, other_inline)
    return spelling, define(spelling, body) + "\n" + query.format(called), query.format(inline)


def _answer(sql: str, dialect: str):
    try:
        return prism_lineage.explain(sql, schema=SCHEMA, dialect=dialect).model_dump()
    except prism_lineage.PrismError as error:
        return type(error).__name__


def assert_same_answer(script: str, written: str, dialect: str) -> None:
    inlined, direct = _answer(script, dialect), _answer(written, dialect)
    if isinstance(direct, str) or isinstance(inlined, str):
        assert inlined == direct, f"{script}\n---\n{written}"
        return
    last, only = inlined["statements"][-1], direct["statements"][0]
    assert last["fields"] == only["fields"], f"{script}\n---\n{written}"
    assert last["reads"] == only["reads"], f"{script}\n---\n{written}"
    assert last["uncertain"] == only["uncertain"], f"{script}\n---\n{written}"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls())
def test_a_call_is_answered_as_its_body_written_at_the_call(case) -> None:
    spelling, script, written = case
    assert_same_answer(script, written, spelling.split("-")[0])


TABLE_BODIES = [
    "SELECT s.id AS k, s.c AS v FROM s WHERE s.c > p_a",
    "SELECT s.id AS k, MAX(s.c) + p_a AS v FROM s GROUP BY s.id",
    "SELECT s.id AS k, s.c AS v FROM s ORDER BY s.c LIMIT p_a",
    "SELECT t.id AS k, (SELECT MAX(s.c) FROM s WHERE s.id = t.id) AS v FROM t WHERE t.a = p_a",
]


def define_table(dialect: str, body: str) -> tuple[str, str]:
    """(the definition of ``tf(p_a)`` returning ``body``'s rows, the FROM item calling it)."""
    return {
        "bigquery": (f"CREATE TABLE FUNCTION ds.tf(p_a INT64) AS {body};", "ds.tf(3)"),
        "duckdb": (f"CREATE MACRO tf(p_a) AS TABLE {body};", "tf(3)"),
        "databricks": (f"CREATE FUNCTION tf(p_a INT) RETURNS TABLE(k INT, v INT) RETURN {body};", "tf(3)"),
        "postgres": (f"CREATE FUNCTION tf(p_a int) RETURNS TABLE(k int, v int) LANGUAGE sql AS $$ {body} $$;",
                     "tf(3)"),
        "snowflake": (f"CREATE FUNCTION tf(p_a INT) RETURNS TABLE(k INT, v INT) AS '{body}';", "TABLE(tf(3))"),
    }[dialect]


@pytest.mark.parametrize("dialect", ["bigquery", "duckdb", "databricks", "postgres", "snowflake"])
@pytest.mark.parametrize("body", TABLE_BODIES)
def test_a_table_function_in_from_is_its_query(dialect: str, body: str) -> None:
    definition, item = define_table(dialect, body)
    query = "SELECT q.v, t.a FROM t JOIN {} AS q ON q.k = t.id"
    written = query.format("(" + re.sub(r"\bp_a\b", "3", body) + ")")
    assert_same_answer(definition + "\n" + query.format(item), written, dialect)


def test_duckdb_runs_both_forms_alike() -> None:
    """The generator's two forms are the same SQL: DuckDB gives the same rows for the macro
    call and for the body written at the call."""
    duckdb = pytest.importorskip("duckdb")
    connection = duckdb.connect()
    connection.execute("CREATE TABLE t (id INT, a INT, x INT); CREATE TABLE s (id INT, c INT)")
    connection.execute("INSERT INTO t VALUES (1, 2, 3), (2, -1, 0), (3, 5, NULL), (4, 2, 7)")
    connection.execute("INSERT INTO s VALUES (1, 10), (2, 20), (3, -5), (7, 1), (8, 0)")

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(calls())
    def check(case) -> None:
        spelling, script, written = case
        if spelling != "duckdb":
            return
        definition, _, query = script.partition("\n")
        connection.execute("DROP MACRO IF EXISTS f")
        connection.execute(definition)
        by_call = sorted(connection.execute(query).fetchall(), key=repr)
        by_body = sorted(connection.execute(written).fetchall(), key=repr)
        assert by_call == by_body, f"{script}\n---\n{written}"

    check()


# --- what is inlined, and what is not -----------------------------------------------------------


def _field(sql: str, dialect: str, name: str, **options):
    answer = prism_lineage.explain(sql, schema=SCHEMA, dialect=dialect, **options)
    statement = answer.statements[-1]
    field = next(f for f in statement.fields if f.name.lower() == name)
    return statement, [(s.column, s.relationship, s.transformation, s.confidence) for s in field.sources]


@pytest.mark.parametrize("dialect, script", [
    ("bigquery", "CREATE TEMP FUNCTION f(x INT64) AS (x + (SELECT MAX(c) FROM s));\nSELECT id, f(a) AS fa FROM t"),
    ("postgres", "CREATE FUNCTION f(x int) RETURNS int LANGUAGE sql AS $$ SELECT x + (SELECT max(c) FROM s) $$;\n"
                 "SELECT id, f(a) AS fa FROM t"),
    ("snowflake", "CREATE FUNCTION f(x INT) RETURNS INT AS 'x + (SELECT MAX(c) FROM s)';\nSELECT id, f(a) AS fa FROM t"),
    ("databricks", "CREATE FUNCTION f(x INT) RETURNS INT RETURN x + (SELECT MAX(c) FROM s);\n"
                   "SELECT id, f(a) AS fa FROM t"),
])
def test_trial_23_the_body_reads_another_table(dialect: str, script: str) -> None:
    statement, sources = _field(script, dialect, "fa")
    assert sources == [("s.c", "value", "aggregate", "exact"), ("t.a", "value", "expression", "exact")]
    assert statement.reads == ["s", "t"]
    assert statement.uncertain == []


def test_names_in_the_body_are_the_bodys() -> None:
    # The parameter x is not t.x; the body's own table wins over a parameter of the same name
    # (s.id in the subquery); the caller's column a is never seen from the body.
    script = ("CREATE TEMP FUNCTION f(x INT64, id INT64) AS (x + (SELECT MAX(c) FROM s WHERE s.c = id));\n"
              "SELECT f(a, 1) AS o FROM t")
    _, sources = _field(script, "bigquery", "o")
    assert ("t.a", "value", "expression", "exact") in sources
    assert all(column != "t.x" for column, *_ in sources)
    assert [column for column, relationship, *_ in sources if relationship == "control"] == ["s.c", "s.id"]
    script = "CREATE TEMP FUNCTION g(y INT64) AS (y + a);\nSELECT g(x) AS o FROM t"
    statement, sources = _field(script, "bigquery", "o")
    assert sources == [("t.x", "value", "opaque", "unknown")]
    assert "unknown column 'a'" in statement.uncertain[0].reason


def test_an_aggregate_argument_is_the_callers() -> None:
    script = ("CREATE TEMP FUNCTION f(x INT64) AS (x * 2 + (SELECT COUNT(*) FROM s WHERE s.c < x));\n"
              "SELECT t.a, f(SUM(t.x)) AS o FROM t GROUP BY t.a")
    statement, sources = _field(script, "bigquery", "o")
    assert ("t.x", "value", "aggregate", "exact") in sources
    assert statement.reads == ["s", "t"]


@pytest.mark.parametrize("dialect, script, why", [
    ("bigquery", "CREATE TEMP FUNCTION f(x INT64) RETURNS INT64 LANGUAGE js AS 'return x + 1';\n"
                 "SELECT f(a) AS o FROM t", "LANGUAGE JS"),
    ("postgres", "CREATE FUNCTION f(x int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN x + 1; END $$;\n"
                 "SELECT f(a) AS o FROM t", "procedural (LANGUAGE PLPGSQL)"),
    ("postgres", "CREATE FUNCTION f(x int) RETURNS int LANGUAGE sql AS $$ UPDATE s SET c = x; SELECT x $$;\n"
                 "SELECT f(a) AS o FROM t", "2 statements"),
    ("postgres", "CREATE FUNCTION f(x int) RETURNS int LANGUAGE sql RETURN f(x - 1);\nSELECT f(a) AS o FROM t",
     "calls itself"),
    ("postgres", "CREATE FUNCTION f(x int) RETURNS int LANGUAGE sql RETURN x;\n"
                 "CREATE FUNCTION f(x text) RETURNS int LANGUAGE sql RETURN 1;\nSELECT f(a) AS o FROM t", "overloads"),
    ("postgres", "CREATE FUNCTION f(x int) RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT x + 1; END;\n"
                 "SELECT f(a) AS o FROM t", "definition is not read"),
    ("bigquery", "CREATE TEMP FUNCTION f(x INT64) AS (x + 1);\nSELECT f(a, id) AS o FROM t", "do not fit"),
    ("duckdb", "CREATE MACRO f(x) AS SUM(x);\nSELECT f(a) AS o FROM t", "aggregates"),
])
def test_what_is_not_inlined_is_unknown_with_its_reason(dialect: str, script: str, why: str) -> None:
    statement, sources = _field(script, dialect, "o")
    assert sources and all(confidence == "unknown" for *_, confidence in sources), sources
    reasons = [u.reason for u in statement.uncertain if u.field == "o"]
    assert any(why in r and r.startswith("function f") and "what its body reads is unknown" in r
               for r in reasons), reasons


def test_a_call_reading_no_column_still_says_it() -> None:
    script = "CREATE TEMP FUNCTION f() RETURNS INT64 LANGUAGE js AS 'return 1';\nSELECT f() AS o FROM t"
    statement, sources = _field(script, "bigquery", "o")
    assert sources == []
    assert any(u.field is None and "function f" in u.reason for u in statement.uncertain)


def test_the_users_registry_entry_describes_a_function_not_inlined() -> None:
    functions = FunctionRegistry.default()
    functions.register(FunctionInfo("f", value_args=(0,)))
    script = "CREATE TEMP FUNCTION f(x INT64, y INT64) RETURNS INT64 LANGUAGE js AS 'return x';\n" \
             "SELECT f(a, id) AS o FROM t"
    statement, sources = _field(script, "bigquery", "o", functions=functions)
    assert ("t.a", "value", "expression", "exact") in sources
    assert not any(s[0] == "t.id" and s[1] == "value" for s in sources)
    # An inlined body is what runs: the registry's entry does not replace it.
    script = "CREATE TEMP FUNCTION f(x INT64, y INT64) AS (y);\nSELECT f(a, id) AS o FROM t"
    _, sources = _field(script, "bigquery", "o", functions=functions)
    assert sources == [("t.id", "value", "identity", "exact")]


def test_drop_function_ends_it_and_positional_and_named_arguments() -> None:
    script = ("CREATE FUNCTION f(int, int) RETURNS int LANGUAGE sql AS $$ SELECT $2 $$;\n"
              "SELECT f(a, id) AS o FROM t;\nDROP FUNCTION f(int, int);\nSELECT f(a, id) AS o FROM t")
    answer = prism_lineage.explain(script, schema=SCHEMA, dialect="postgres")
    first, last = [s for s in answer.statements if s.kind == "select" and s.procedure is None]
    assert [(s.column, s.confidence) for s in first.fields[0].sources] == [("t.id", "exact")]
    assert {s.confidence for s in last.fields[0].sources} == {"conservative"}  # the registry's default again
    script = "CREATE TEMP FUNCTION f(x INT64, y INT64) AS (x - y);\nSELECT f(y => a, x => id) AS o FROM t"
    _, sources = _field(script, "bigquery", "o")
    assert sources == [("t.a", "value", "expression", "exact"), ("t.id", "value", "expression", "exact")]


def test_table_function_not_inlined_is_said() -> None:
    script = ("CREATE FUNCTION tf(p int) RETURNS TABLE(k int) LANGUAGE plpgsql AS $$ BEGIN RETURN QUERY "
              "SELECT id FROM s; END $$;\nSELECT k FROM tf(1)")
    answer = prism_lineage.explain(script, schema=SCHEMA, dialect="postgres")
    statement = answer.statements[-1]
    assert {s.confidence for s in statement.fields[0].sources} == {"unknown"}
    assert any("function tf" in u.reason and "procedural" in u.reason for u in statement.uncertain)


def test_the_inlined_value_stands_at_the_call() -> None:
    """The operator holding the call is placed where the SELECT is written, not in the CREATE;
    the body's own operators keep their positions in the CREATE (evidence for both)."""
    from prism_lineage.explain import lower
    from prism_lineage.ir.walk import walk_relations

    script = "CREATE TEMP FUNCTION f(x INT64) AS (x + (SELECT MAX(c) FROM s));\nSELECT id, f(a) AS fa FROM t"
    select = lower(script, SCHEMA, "bigquery")[-1]
    assert select.root.origin.line == 2 and select.root.id.startswith("s1.project@2:")
    lines = {r.origin.line for r in walk_relations(select.root) if r.origin is not None}
    assert lines == {1, 2}
