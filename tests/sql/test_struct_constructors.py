"""A field read out of a struct constructor that names it (specs/nested.md rule 5a) is exactly
that field's expression.  DuckDB is the oracle: each query runs in DuckDB over rows whose
columns all hold different values, and a field answered ``identity``/``exact`` from one column
must hold that column's value on every row; a field the constructor does not build is an error
in both."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage
from prism_lineage import UnknownColumnError

SCHEMA = {"t": {"a": "int", "b": "int", "c": "varchar"}}


@pytest.fixture(scope="module")
def database():
    connection = duckdb.connect()
    connection.execute("CREATE TABLE t (a INT, b INT, c VARCHAR)")
    connection.execute("INSERT INTO t VALUES (1, 10, 'x'), (2, 20, 'y'), (3, NULL, 'z')")
    yield connection
    connection.close()


# (expression, the one column whose value it is)
IDENTITY_CASES = [
    ("{'p': a, 'q': b}.p", "a"),
    ("{'p': a, 'q': b}.q", "b"),
    ("{'p': a, 'q': b}['q']", "b"),
    ("{'P': a, 'q': b}.p", "a"),
    ("struct_pack(p := c, q := a).p", "c"),
    ("{'p': {'r': b, 's': a}, 'q': c}.p.s", "a"),
    ("{'p': {'r': b, 's': a}, 'q': c}['p']['r']", "b"),
]


@pytest.mark.parametrize("expression, column", IDENTITY_CASES)
def test_a_named_field_is_its_expression(database, expression, column) -> None:
    sql = f"SELECT {expression} AS v, {column} AS expected FROM t"
    rows = database.execute(sql).fetchall()
    assert all(v == expected for v, expected in rows)
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    v = statement.fields[0]
    assert [(s.column, s.transformation, s.confidence, s.path) for s in v.sources] == [
        (f"t.{column}", "identity", "exact", None)]
    assert statement.uncertain == []


def test_a_computed_field_reads_only_its_own_inputs(database) -> None:
    sql = "SELECT {'p': a + 1, 'q': c}.p AS v FROM t"
    assert database.execute(sql).fetchall() == [(2,), (3,), (4,)]
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [(s.column, s.transformation, s.confidence) for s in statement.fields[0].sources] == [
        ("t.a", "expression", "exact")]


@pytest.mark.parametrize("expression", ["{'p': a}.q", "{'p': a}['q']", "{'p': {'r': a}}.p.s"])
def test_a_field_the_constructor_does_not_build_is_an_error(database, expression) -> None:
    sql = f"SELECT {expression} AS v FROM t"
    with pytest.raises(duckdb.Error):
        database.execute(sql)
    with pytest.raises(UnknownColumnError) as error:
        prism_lineage.explain(sql, SCHEMA, dialect="duckdb")
    assert error.value.line == 1 and error.value.column is not None


@pytest.mark.parametrize("expression, column", IDENTITY_CASES)
def test_a_field_of_a_struct_built_in_a_derived_table_is_its_expression(database, expression, column) -> None:
    """The same constructors built in a derived table and read outside it (``d.s.p``): the field's
    own value, exact, as inline (specs/nested.md 5a); DuckDB agrees on every row."""
    constructor, _, path = expression.partition("}.") if "}." in expression else expression.partition("}[")
    built = constructor + "}" if "}." in expression or "}[" in expression else constructor
    access = ("." + path) if "}." in expression else ("[" + path)
    if expression.startswith("struct_pack"):
        built, _, rest = expression.rpartition(").")
        built, access = built + ")", "." + rest
    sql = f"SELECT d.s{access} AS v, d.{column} AS expected FROM (SELECT {built} AS s, {column} FROM t) AS d"
    rows = database.execute(sql).fetchall()
    assert all(v == expected for v, expected in rows)
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [(s.column, s.transformation, s.confidence, s.path) for s in statement.fields[0].sources] == [
        (f"t.{column}", "identity", "exact", None)]
    assert statement.uncertain == []


def test_a_derived_struct_field_and_star() -> None:
    """``*`` over the derived table lists its own columns only; a field whose value holds a
    subquery is not followed (rule 3: every input, conservative)."""
    sql = "SELECT d.*, d.s.p AS v FROM (SELECT {'p': a + 1, 'q': b} AS s FROM t) AS d"
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in statement.fields] == ["s", "v"]
    assert [(s.column, s.transformation, s.confidence) for s in statement.fields[1].sources] == [
        ("t.a", "expression", "exact")]
    sql = "SELECT d.s.p AS v FROM (SELECT {'p': a, 'q': (SELECT MAX(b) FROM t)} AS s FROM t) AS d"
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert {s.confidence for s in statement.fields[0].sources} == {"conservative"}
