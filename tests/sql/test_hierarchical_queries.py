"""Hierarchical queries, ``[START WITH …] CONNECT BY …`` (Snowflake, Oracle; field trial 22),
read as their recursive-CTE twin (specs/cte.md, "Hierarchical queries").

Property: the same meaning written two ways gives the same answer — a hierarchical query over
one table is answered as the recursive CTE written by hand the way the engines document it
(roots, then children joined to the rows reached so far through the CONNECT BY condition).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prism_lineage

SCHEMA = {"t": {"id": "int", "parent": "int", "a": "int", "b": "int"}}
COLUMNS = ("id", "parent", "a", "b")


@st.composite
def hierarchies(draw) -> tuple[str, str, str]:
    dialect = draw(st.sampled_from(["snowflake", "oracle"]))
    items = draw(st.lists(st.sampled_from(COLUMNS), min_size=1, max_size=3, unique=True))
    start = draw(st.sampled_from([None, "parent IS NULL", "a > 0", "b = 1 AND parent IS NULL"]))
    # CONNECT BY: the parent's column (PRIOR) against the child's, and maybe a child's condition.
    prior, child = draw(st.sampled_from([("id", "parent"), ("parent", "id"), ("a", "b")]))
    extra = draw(st.sampled_from([None, "b > 0", "a <> 3"]))
    where = draw(st.sampled_from([None, "a > 1", "b IS NOT NULL"]))
    order = draw(st.sampled_from([None, "a", "b DESC"]))
    connect = f"PRIOR {prior} = {child}" + (f" AND {extra}" if extra else "")
    hierarchical = (f"SELECT {', '.join(items)} FROM t" + (f" WHERE {where}" if where else "")
                    + (f" START WITH {start}" if start else "") + f" CONNECT BY {connect}"
                    + (f" ORDER BY {order}" if order else ""))
    child_extra = f" AND t.{extra}" if extra else ""
    twin = ("WITH RECURSIVE r AS (SELECT * FROM t" + (f" WHERE {start}" if start else "")
            + f" UNION ALL SELECT t.* FROM t JOIN r ON r.{prior} = t.{child}{child_extra}) "
            + f"SELECT {', '.join(items)} FROM r AS t" + (f" WHERE {where}" if where else "")
            + (f" ORDER BY {order}" if order else ""))
    return dialect, hierarchical, twin


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hierarchies())
def test_a_hierarchical_query_is_answered_as_its_recursive_cte(case) -> None:
    dialect, hierarchical, twin = case
    ours = prism_lineage.explain(hierarchical, SCHEMA, dialect=dialect).model_dump()["statements"][0]
    theirs = prism_lineage.explain(twin, SCHEMA, dialect=dialect).model_dump()["statements"][0]
    assert ours["fields"] == theirs["fields"], f"{hierarchical}\n---\n{twin}"
    assert ours["reads"] == theirs["reads"] and ours["uncertain"] == theirs["uncertain"]


def _sources(sql: str, dialect: str = "oracle") -> dict[str, list[tuple[str, str, str, str]]]:
    statement = prism_lineage.explain(sql, SCHEMA, dialect=dialect).statements[0]
    return {f.name.lower(): [(s.column, s.relationship, s.transformation, s.confidence) for s in f.sources]
            for f in statement.fields}


def test_trial_22_roots_are_control_and_the_parent_link_is_join() -> None:
    found = _sources("SELECT id, b, LEVEL AS lvl FROM t START WITH parent IS NULL CONNECT BY PRIOR id = parent",
                     "snowflake")
    indirect = [("t.parent", "control", "filter", "exact"), ("t.id", "join", "join", "exact"),
                ("t.parent", "join", "join", "exact")]
    assert found["id"] == [("t.id", "value", "identity", "exact")] + indirect
    assert found["b"] == [("t.b", "value", "identity", "exact")] + indirect
    assert found["lvl"] == indirect  # LEVEL: a depth, no column source


def test_pseudo_columns_and_path() -> None:
    found = _sources("SELECT CONNECT_BY_ROOT a AS root_a, SYS_CONNECT_BY_PATH(b, '/') AS path, "
                     "CONNECT_BY_ISLEAF AS leaf FROM t START WITH parent IS NULL "
                     "CONNECT BY NOCYCLE PRIOR id = parent AND LEVEL <= 3")
    assert found["root_a"][0] == ("t.a", "value", "identity", "exact")
    assert found["path"][0] == ("t.b", "value", "expression", "exact")
    assert all(relationship != "value" for _, relationship, *_ in found["leaf"])


def test_in_a_derived_table_an_insert_and_without_a_schema() -> None:
    sql = ("INSERT INTO x (k) SELECT e.id FROM (SELECT id, parent FROM t WHERE b = 1) e "
           "CONNECT BY e.parent = PRIOR e.id")
    statement = prism_lineage.explain(sql, {**SCHEMA, "x": {"k": "int"}}, dialect="snowflake").statements[0]
    assert statement.target == "x"
    kinds = {(s.column, s.relationship) for s in statement.fields[0].sources}
    assert kinds == {("t.id", "value"), ("t.b", "control"), ("t.id", "join"), ("t.parent", "join")}
    schemaless = prism_lineage.explain("SELECT id FROM h START WITH p IS NULL CONNECT BY PRIOR id = p",
                                       dialect="oracle").statements[0]
    assert {(s.column, s.relationship) for s in schemaless.fields[0].sources} == {
        ("H.ID", "value"), ("H.P", "control"), ("H.ID", "join"), ("H.P", "join")}


@pytest.mark.parametrize("dialect", ["snowflake", "oracle"])
def test_the_statements_order_is_kept(dialect: str) -> None:
    found = _sources("SELECT id FROM t START WITH parent IS NULL CONNECT BY PRIOR id = parent ORDER BY a", dialect)
    assert ("t.a", "sort", "identity", "exact") in found["id"]
