"""Property tests for set operations (issue 9, items 2 and 3; specs/set-operations.md).

* **by position, with unknown columns** — a chain of UNION ALL branches, some ``SELECT *``
  over tables without a schema: a column named through the result is the *first* branch's
  (the result's names are its names); a later branch is paired by position, so it never
  gives that name's column of its own table as an exact source — its star stays unknown (with
  an uncertain entry) and its declared columns are candidates (conservative).
* **by name** — ``A UNION [ALL] BY NAME B`` explains exactly like the positional UNION of both
  inputs projected onto the result's columns by hand (``NULL AS c`` where an input lacks one).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prism_lineage

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NAMES = ("id", "k", "x", "amount", "status")

prism_lineage.explain("SELECT 1")


@st.composite
def star_unions(draw):
    """(schema, sql, name read, first table) — the first branch is ``SELECT * FROM s0`` over a
    table without a schema."""
    schema: dict[str, dict[str, str]] = {}
    branches = ["SELECT * FROM s0"]
    for i in range(1, draw(st.integers(2, 4))):
        if draw(st.booleans()):
            branches.append(f"SELECT * FROM s{i}")  # no schema
        else:
            columns = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4, unique=True))
            schema[f"d{i}"] = {c: "int" for c in columns}
            branches.append(f"SELECT {', '.join(columns)} FROM d{i}")
    operator = draw(st.sampled_from(("UNION ALL", "UNION")))
    name = draw(st.sampled_from(NAMES))
    sql = f"SELECT u.{name} FROM ({f' {operator} '.join(branches)}) AS u"
    return schema, sql, name, draw(st.sampled_from(("duckdb", "postgres", "bigquery", "spark")))


@SETTINGS
@given(star_unions())
def test_a_name_read_through_a_union_names_only_the_first_branch(case) -> None:
    schema, sql, name, dialect = case
    if dialect == "bigquery":
        sql = sql.replace(" UNION ", " UNION DISTINCT ").replace("DISTINCT ALL", "ALL")
    answer = prism_lineage.explain(sql, schema=schema or None, dialect=dialect).model_dump()["statements"][0]
    [field] = answer["fields"]
    values = [s for s in field["sources"] if s["relationship"] == "value"]
    exact = {s["column"] for s in values if s["confidence"] == "exact"}
    assert exact == {f"s0.{name}"}, sql
    later = [s for s in values if not s["column"].startswith("s0.")]
    assert later, sql  # every later branch contributes something at that position
    for source in later:
        table, column = source["column"].split(".")
        if table.startswith("s"):
            assert (column, source["confidence"]) == ("*", "unknown"), sql
        else:
            assert source["confidence"] == "conservative" and column in schema[table], sql
    noted = {u["field"] for u in answer["uncertain"]}
    assert field["name"] in noted, sql


SCHEMA = {
    "p": {c: "int" for c in NAMES},
    "q": {c: "int" for c in NAMES},
}


@st.composite
def by_name_pairs(draw):
    left = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=5, unique=True))
    right = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=5, unique=True))
    operator = draw(st.sampled_from(("UNION ALL", "UNION")))
    where = draw(st.sampled_from(("", " WHERE q.k > 0")))
    dialect = draw(st.sampled_from(("duckdb", "snowflake", "spark", "databricks")))
    return left, right, operator, where, dialect


@SETTINGS
@given(by_name_pairs())
def test_by_name_is_the_union_of_both_inputs_projected_by_name(case) -> None:
    left, right, operator, where, dialect = case
    by_name = f"SELECT {', '.join(left)} FROM p {operator} BY NAME SELECT {', '.join(right)} FROM q{where}"
    result = left + [c for c in right if c not in left]

    def projected(columns: list[str], table: str) -> str:
        items = [c if c in columns else f"NULL AS {c}" for c in result]
        return f"SELECT {', '.join(items)} FROM {table}"

    by_hand = f"{projected(left, 'p')} {operator} {projected(right, 'q')}{where}"
    first = prism_lineage.explain(by_name, schema=SCHEMA, dialect=dialect).model_dump()["statements"][0]
    second = prism_lineage.explain(by_hand, schema=SCHEMA, dialect=dialect).model_dump()["statements"][0]
    assert [f["name"].lower() for f in first["fields"]] == result, by_name
    assert first["fields"] == second["fields"], (by_name, by_hand)
    for f in first["fields"]:
        values = {s["column"] for s in f["sources"] if s["relationship"] == "value"}
        name = f["name"].lower()
        expected = {f"p.{name}"} if name in left else set()
        expected |= {f"q.{name}"} if name in right else set()
        assert {v.lower() for v in values} == expected, by_name
