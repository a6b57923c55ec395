"""Through a script, a view's query is lowered once and kept for the reads after it while the
script changes nothing it may read (frontends/sql/scripts.py ``_view_rows``); before, every read
lowered it again, and the query of the view it read, and so on down a chain of views: quadratic
(200 views, 20,301 lowerings of a SELECT; 400 views, 36 s).

What must not change: every answer, byte for byte, against lowering the view at every read —
over generated scripts that interleave views with writes into what they read, and over the
changes that must make a kept view be lowered again (a table created under a name a view reads,
a write, a dropped and re-created view, a renamed column, a variable).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, event, given, settings

import prism_lineage
from prism_lineage import explain
from prism_lineage.frontends.sql import scripts as script_module
from prism_lineage.frontends.sql.queries import QueryLowerer
from test_script_summaries import scripts


def answers(sql: str, schema=None, dialect: str = "duckdb", *, keep: bool) -> list[dict]:
    before = script_module.KEEP_VIEWS
    script_module.KEEP_VIEWS = keep
    try:
        return [s.model_dump() for s in explain(sql, schema, dialect, through_script=True).statements]
    finally:
        script_module.KEEP_VIEWS = before


def sources(answer: dict, field: str) -> set[tuple[str, str]]:
    found = next(f for f in answer["fields"] if f["name"] == field)
    return {(s["column"], s["relationship"]) for s in found["sources"]}


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts())
def test_kept_views_answer_as_views_lowered_at_every_read(case) -> None:
    schema, sql, dialect = case
    try:
        kept = answers(sql, schema, dialect, keep=True)
    except prism_lineage.PrismError as error:
        event(f"refused: {type(error).__name__}")
        with pytest.raises(type(error)):
            answers(sql, schema, dialect, keep=False)
        return
    event(f"views: {min(sql.count('CREATE VIEW'), 3)}")
    assert kept == answers(sql, schema, dialect, keep=False), sql


SCHEMA = {"t": {"a": "int", "b": "int"}, "s": {"x": "int", "y": "int"}, "x": {"a": "int"}}

# Each script reads a view, changes something its query reads, and reads it again: the second
# read must see the change (the view is lowered again), as a database reading the view then would.
CHANGES = {
    "a write into the table it reads": (
        "CREATE VIEW v AS SELECT a FROM t; SELECT a FROM v; INSERT INTO t (a, b) SELECT x, y FROM s; "
        "SELECT a FROM v", {("t.a", "value"), ("s.x", "value")}),
    "a table created under the name it reads": (
        "CREATE VIEW v AS SELECT a FROM x; SELECT a FROM v; CREATE TABLE x AS SELECT y AS a FROM s; "
        "SELECT a FROM v", {("s.y", "value")}),
    "the view it reads dropped and created again": (
        "CREATE VIEW u AS SELECT a FROM t; CREATE VIEW v AS SELECT a FROM u; SELECT a FROM v; DROP VIEW u; "
        "CREATE VIEW u AS SELECT x AS a FROM s; SELECT a FROM v", {("s.x", "value")}),
    "rows deleted from the table it reads": (
        "CREATE TABLE w AS SELECT a, b FROM t; CREATE VIEW v AS SELECT a FROM w; SELECT a FROM v; "
        "DELETE FROM w WHERE b > 1; SELECT a FROM v", {("t.a", "value"), ("t.b", "control")}),
}


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_a_change_to_what_a_kept_view_reads_is_seen_by_the_next_read(name) -> None:
    sql, expected = CHANGES[name]
    kept = answers(sql, SCHEMA, keep=True)
    assert kept == answers(sql, SCHEMA, keep=False)
    last = kept[-1]
    field = last["fields"][0]["name"]
    assert expected <= sources(last, field), (name, sources(last, field))


# Changes whose second read the engine refuses (or answers) the same way whether the view was
# kept or lowered again: the refusal must not depend on the cache.
REFUSED_OR_NOT = (
    "CREATE TABLE w AS SELECT a, b FROM t; CREATE VIEW v AS SELECT b FROM w; SELECT b FROM v; "
    "ALTER TABLE w RENAME COLUMN b TO c; SELECT b FROM v",
    "CREATE TABLE w AS SELECT a, b FROM t; CREATE VIEW v AS SELECT a FROM w; SELECT a FROM v; DROP TABLE w; "
    "SELECT a FROM v",
    "CREATE VIEW v AS SELECT a FROM t; SELECT a FROM v; DROP VIEW v; SELECT a FROM v",
)


@pytest.mark.parametrize("sql", REFUSED_OR_NOT)
def test_a_change_that_may_be_refused_is_refused_or_answered_the_same_way(sql) -> None:
    def outcome(keep: bool):
        try:
            return answers(sql, SCHEMA, keep=keep)
        except prism_lineage.PrismError as error:
            return f"{type(error).__name__}: {error}"

    assert outcome(True) == outcome(False)


def test_a_view_read_by_several_statements_says_what_its_query_said_each_time() -> None:
    """A note its query's lowering made (a table not in the schema) is said by every read."""
    sql = "CREATE VIEW v AS SELECT q FROM nowhere; SELECT q FROM v; SELECT q FROM v AS again"
    kept = answers(sql, SCHEMA, keep=True)
    assert kept == answers(sql, SCHEMA, keep=False)
    for statement in kept[1:]:
        assert any("nowhere is not in the schema" in u["reason"] for u in statement["uncertain"]), statement


def chain(n: int) -> str:
    out = ["CREATE VIEW v1 AS SELECT a, b FROM t"]
    out += [f"CREATE VIEW v{i} AS SELECT a + 1 AS a, b FROM v{i - 1} WHERE b > {i}" for i in range(2, n + 1)]
    return ";\n".join(out + [f"SELECT a, b FROM v{n}"])


def test_a_chain_of_views_lowers_each_query_a_bounded_number_of_times(monkeypatch) -> None:
    """Counted, not timed: lowering a query, for a chain of 300 views, at most a few times per
    view (the view's own statement, and its first read); 45,000 times before."""
    calls = []
    original = QueryLowerer.lower_query

    def counting(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(QueryLowerer, "lower_query", counting)
    last = explain(chain(300), SCHEMA, "duckdb", through_script=True).statements[-1].model_dump()
    assert sources(last, "a") == {("t.a", "value"), ("t.b", "control")}
    assert len(calls) <= 3 * 301
