"""Stars outside a select item of their own (field trials 07 and 08): DuckDB's ``COLUMNS(...)``
expands like ``*`` into one output per column it picks, and ``*`` as a function argument
(``OBJECT_CONSTRUCT(*)``, ``HASH(*)``, ``HASH_AGG(*)``) reads every column — never "a constant".

DuckDB itself is the oracle for the output columns: each query runs in DuckDB and the answer
must have the same fields, in the same order, each read from the column DuckDB put there."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage
from prism_lineage import InvalidStatementError
from prism_lineage.cli import main

SCHEMA = {"t1": {"id": "int", "a": "int", "b": "varchar"}, "t2": {"id": "int", "a": "int", "c": "varchar"}}


@pytest.fixture(scope="module")
def database():
    connection = duckdb.connect()
    connection.execute("CREATE TABLE t1 (id INT, a INT, b VARCHAR); CREATE TABLE t2 (id INT, a INT, c VARCHAR)")
    yield connection
    connection.close()


# (query, the column each output reads, in DuckDB's order)
COLUMNS_CASES = [
    ("SELECT COLUMNS('^[ab]$') FROM t1", ["t1.a", "t1.b"]),
    ("SELECT COLUMNS(*) FROM t1", ["t1.id", "t1.a", "t1.b"]),
    ("SELECT max(COLUMNS(*)) FROM t1", ["t1.id", "t1.a", "t1.b"]),
    ("SELECT COLUMNS('a') + 1 FROM t1", ["t1.a"]),
    ("SELECT COLUMNS('a|b') AS x FROM t1", ["t1.a", "t1.b"]),
    ("SELECT max(COLUMNS('a|id')) + 1 AS '\\0_x' FROM t1", ["t1.id", "t1.a"]),
    ("SELECT COLUMNS('(a|b)') AS 'x_\\1' FROM t1", ["t1.a", "t1.b"]),
    ("SELECT COLUMNS(['b', 'a']) FROM t1", ["t1.a", "t1.b"]),
    ("SELECT COLUMNS(* EXCLUDE (id)) FROM t1", ["t1.a", "t1.b"]),
    ("SELECT COLUMNS(t2.*) FROM t1 JOIN t2 ON t1.id = t2.id", ["t2.id", "t2.a", "t2.c"]),
    ("SELECT COLUMNS(*) FROM t1 JOIN t2 ON t1.id = t2.id", ["t1.id", "t1.a", "t1.b", "t2.id", "t2.a", "t2.c"]),
    ("SELECT id, COLUMNS('^[ac]$') FROM t1 JOIN t2 USING (id)", ["t1.id", "t1.a", "t2.a", "t2.c"]),
    ("SELECT COLUMNS('a') FROM t1 GROUP BY ALL", ["t1.a"]),
    ("SELECT * FROM (SELECT COLUMNS('a|b') FROM t1)", ["t1.a", "t1.b"]),
]


@pytest.mark.parametrize("sql, reads", COLUMNS_CASES)
def test_columns_gives_the_outputs_duckdb_gives(database, sql, reads) -> None:
    names = [d[0] for d in database.execute(sql).description]
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in statement.fields] == names
    for field, column in zip(statement.fields, reads):
        assert [s.column for s in field.sources if s.relationship == "value"] == [column], field.name
        assert {s.confidence for s in field.sources} == {"exact"}
    assert statement.uncertain == []


def test_columns_in_a_filter_reads_every_column_it_picks(database) -> None:
    sql = "SELECT id FROM t1 WHERE COLUMNS('a|b') IS NOT NULL"
    database.execute(sql)
    [field] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements[0].fields
    assert [(s.column, s.relationship) for s in field.sources] == [
        ("t1.id", "value"), ("t1.a", "control"), ("t1.b", "control")]


def test_unpacked_columns_are_the_arguments_of_one_call(database) -> None:
    sql = "SELECT coalesce(*COLUMNS(['a', 'id'])) AS c FROM t1"
    assert [d[0] for d in database.execute(sql).description] == ["c"]
    [field] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements[0].fields
    assert [(s.column, s.transformation) for s in field.sources] == [("t1.a", "expression"), ("t1.id", "expression")]


def test_what_columns_picks_unseen_is_said() -> None:
    """Without a schema a pattern's columns are unknown; a lambda in a form that is not
    evaluated (tests/sql/test_columns_lambda.py has those that are): one field standing for the
    columns, never exact, with the reason under uncertain."""
    [statement] = prism_lineage.explain("SELECT COLUMNS('^[ab]$'), COLUMNS(['id']) FROM t1", dialect="duckdb").statements
    pattern, listed = statement.fields
    assert [(s.column, s.confidence) for s in pattern.sources] == [("t1.*", "unknown")]
    assert [(s.column, s.confidence) for s in listed.sources] == [("t1.id", "exact")]
    assert [u.field for u in statement.uncertain] == ["COLUMNS('^[ab]$')"]
    [statement] = prism_lineage.explain("SELECT COLUMNS(lambda c: length(c) < 3) FROM t1", SCHEMA,
                                        dialect="duckdb").statements
    [field] = statement.fields
    assert {(s.column, s.confidence) for s in field.sources} == {
        ("t1.id", "conservative"), ("t1.a", "conservative"), ("t1.b", "conservative")}
    assert "does not evaluate" in statement.uncertain[0].reason


@pytest.mark.parametrize("sql, message", [
    ("SELECT *COLUMNS('a|b') FROM t1", "*COLUMNS unpacks into a function's arguments"),
    ("SELECT COLUMNS('x') FROM t1", "COLUMNS('x') matches no column of t1"),
    ("SELECT COLUMNS('(?=a)') FROM t1", "lookaround and backreferences are not RE2 syntax"),
    ("SELECT COLUMNS('a(') FROM t1", "not a regular expression"),
    ("SELECT COLUMNS('a') + COLUMNS('b') FROM t1", "different COLUMNS expressions in one select item"),
])
def test_columns_duckdb_refuses_is_refused_with_where(database, sql, message) -> None:
    with pytest.raises(duckdb.Error):
        database.execute(sql)
    with pytest.raises(InvalidStatementError) as error:
        prism_lineage.explain(sql, SCHEMA, dialect="duckdb")
    assert message in error.value.message
    assert error.value.line == 1 and error.value.column >= 8


# --- * as a function argument (trial 08) ----------------------------------------------------


def sources(sql: str, schema=SCHEMA, dialect: str = "snowflake") -> dict[str, list[tuple[str, str, str]]]:
    [statement] = prism_lineage.explain(sql, schema, dialect=dialect).statements
    return {f.name: [(s.column, s.transformation, s.confidence) for s in f.sources if s.relationship == "value"]
            for f in statement.fields}


def test_a_star_argument_reads_every_column() -> None:
    every = ["t1.a", "t1.b", "t1.id"]
    found = sources("SELECT OBJECT_CONSTRUCT(*) AS o, HASH(*) AS h, ARRAY_CONSTRUCT(*) AS arr, "
                    "OBJECT_CONSTRUCT_KEEP_NULL(*) AS k FROM t1")
    assert found == {"O": [(c, "expression", "exact") for c in every], "H": [(c, "mask", "exact") for c in every],
                     "ARR": [(c, "expression", "exact") for c in every],
                     "K": [(c, "expression", "exact") for c in every]}
    assert sources("SELECT COUNT(*) AS n, HASH_AGG(*) AS ha FROM t1") == {
        "N": [], "HA": [(c, "aggregate", "exact") for c in every]}
    assert sources("SELECT COUNT(t1.*) AS n FROM t1", dialect="postgres") == {
        "n": [(c, "aggregate", "exact") for c in every]}  # the rows whose t1 is not null: reads its columns
    assert sources("SELECT md5(to_json(object_construct(*))) AS m FROM t1 JOIN t2 ON t1.id = t2.id",
                   dialect="snowflake") == {"M": [(c, "mask", "exact") for c in every + ["t2.a", "t2.c", "t2.id"]]}


def test_a_qualified_star_argument_reads_its_table_only() -> None:
    assert sources("SELECT HASH(t2.* EXCLUDE (id)) AS h FROM t1 JOIN t2 ON t1.id = t2.id") == {
        "H": [("t2.a", "mask", "exact"), ("t2.c", "mask", "exact")]}


def test_a_star_argument_over_an_undeclared_table_is_unknown(tmp_path, capsys) -> None:
    file = tmp_path / "q.sql"
    file.write_text("SELECT OBJECT_CONSTRUCT(*) AS o, HASH(*) AS h FROM t1")
    assert main(["explain", str(file), "-d", "snowflake"]) == 0
    out = capsys.readouterr().out
    assert "no column sources" not in out
    assert "value     T1.*  mask         unknown" in out
    assert "H: the columns of T1 are not in the schema" in out


# --- DuckDB's unnest of a struct, recursive unnest, struct.* (trial 11) -------------------------

NESTED = {"orders": {"order_id": "bigint", "customer": "STRUCT<name VARCHAR, city VARCHAR>",
                     "items": "ARRAY<STRUCT<sku VARCHAR, qty INT>>"}}


@pytest.fixture(scope="module")
def orders():
    connection = duckdb.connect()
    connection.execute("CREATE TABLE orders (order_id BIGINT, customer STRUCT(name VARCHAR, city VARCHAR), "
                       "items STRUCT(sku VARCHAR, qty INT)[])")
    yield connection
    connection.close()


# (query, (column, path, transformation) of each output in DuckDB's order)
NESTED_CASES = [
    ("SELECT unnest(customer) FROM orders",
     [("orders.customer", "customer.name", "nested_access"), ("orders.customer", "customer.city", "nested_access")]),
    ("SELECT unnest(customer) AS u, order_id FROM orders",
     [("orders.customer", "customer.name", "nested_access"), ("orders.customer", "customer.city", "nested_access"),
      ("orders.order_id", None, "identity")]),
    ("SELECT unnest(items, recursive := true) FROM orders",
     [("orders.items", "items[].sku", "generator"), ("orders.items", "items[].qty", "generator")]),
    ("SELECT unnest(items, max_depth := 2) FROM orders",
     [("orders.items", "items[].sku", "generator"), ("orders.items", "items[].qty", "generator")]),
    ("SELECT customer.* FROM orders",
     [("orders.customer", "customer.name", "nested_access"), ("orders.customer", "customer.city", "nested_access")]),
    ("SELECT order_id, customer.* EXCLUDE (name) FROM orders",
     [("orders.order_id", None, "identity"), ("orders.customer", "customer.city", "nested_access")]),
]


@pytest.mark.parametrize("sql, reads", NESTED_CASES)
def test_struct_unnest_and_struct_star_give_duckdbs_columns(orders, sql, reads) -> None:
    names = [d[0] for d in orders.execute(sql).description]
    [statement] = prism_lineage.explain(sql, NESTED, dialect="duckdb").statements
    assert [f.name for f in statement.fields] == names
    # (an unnest's list decides the rows: its control line, trial 69, is not what this test is about)
    assert [[(s.column, s.path, s.transformation) for s in f.sources if s.relationship == "value"]
            for f in statement.fields] == [[r] for r in reads]
    assert {s.confidence for f in statement.fields for s in f.sources} == {"exact"}


def test_an_unnest_whose_argument_type_is_unknown_is_not_exact() -> None:
    [statement] = prism_lineage.explain("SELECT unnest(items) FROM orders", dialect="duckdb").statements
    [field] = statement.fields
    assert [(s.column, s.relationship, s.confidence) for s in field.sources] == [
        ("orders.items", "value", "conservative"), ("orders.items", "control", "conservative")]
    assert "a column per field of a struct" in statement.uncertain[0].reason


@pytest.mark.parametrize("sql, schema, message", [
    ("SELECT customer.* FROM orders", None, "customer.* stands for the fields of the struct column customer, whose "
                                            "type is not declared"),
    ("SELECT order_id.* FROM orders", NESTED, "order_id is no table or alias in scope (orders) but a column of type"),
    ("SELECT nobody.* FROM orders", NESTED, "unknown table or alias 'nobody'"),
])
def test_a_star_over_what_is_no_struct_says_why(sql, schema, message) -> None:
    with pytest.raises(prism_lineage.PrismError) as error:
        prism_lineage.explain(sql, schema, dialect="duckdb")
    assert message in error.value.message
    assert error.value.line == 1


def test_clickhouse_columns_names_an_expression_by_its_text() -> None:
    schema = {"t1": {"id": "int", "a": "int", "ab": "int"}}
    [statement] = prism_lineage.explain("SELECT max(COLUMNS('a')) FROM t1", schema, dialect="clickhouse").statements
    assert [(f.name, [s.column for s in f.sources]) for f in statement.fields] == [
        ("max(a)", ["t1.a"]), ("max(ab)", ["t1.ab"])]


# --- the class: stars, COLUMNS, unnest and struct.* anywhere are answered or refused cleanly ---------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

FUZZ_SCHEMA = {"t1": {"id": "int", "a": "int", "b": "varchar", "s": "STRUCT<x INT, y STRUCT<z INT>>",
                      "l": "ARRAY<STRUCT<p INT, q INT>>"}, "t2": {"id": "int", "a": "int", "c": "varchar"}}
PIECES = ["COLUMNS(*)", "COLUMNS('a|b')", "COLUMNS(['a'])", "COLUMNS(t1.*)", "*COLUMNS(*)",
          "COLUMNS(lambda c: c LIKE 'a%')", "HASH(*)", "OBJECT_CONSTRUCT(*)", "HASH(t2.*)", "COUNT(*)", "COUNT(t1.*)",
          "HASH_AGG(*)", "unnest(s)", "unnest(l)", "unnest(l, recursive := true)", "s.*", "t1.s.*", "s.y.*",
          "unnest(s, recursive := true)", "a", "max(COLUMNS(*))", "coalesce(*COLUMNS(['a', 'id']))",
          "COLUMNS(* EXCLUDE (id))", "COLUMNS(* REPLACE (a + 1 AS a))", "posexplode(l)",
          "IF(a > 1, t1, t2).*", "IF(a > 1, t1, NULL).* REPLACE (1 AS a)", "STRUCT(a AS x, 1 AS y).*", "(a + 1).*"]
FROMS = ["t1", "t1 JOIN t2 USING (id)", "t1 JOIN t2 ON t1.id = t2.id", "t1, u", "u", "(SELECT * FROM t1) t1",
         "t1 GROUP BY ALL"]
CLAUSES = ["", " WHERE COLUMNS('a') > 1", " WHERE HASH(*) > 0", " ORDER BY COLUMNS(*)",
           " QUALIFY row_number() OVER (ORDER BY HASH(*)) = 1"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=st.lists(st.sampled_from(PIECES), min_size=1, max_size=3), source=st.sampled_from(FROMS),
       clause=st.sampled_from(CLAUSES), dialect=st.sampled_from(["duckdb", "snowflake", "bigquery", "spark"]),
       schema=st.sampled_from([FUZZ_SCHEMA, None]))
def test_star_forms_anywhere_are_answered_or_refused_cleanly(items, source, clause, dialect, schema) -> None:
    """Found this way: ``SELECT posexplode(l) FROM t1 GROUP BY ALL`` was an internal error."""
    sql = f"SELECT {', '.join(items)} FROM {source}{clause}"
    try:
        prism_lineage.explain(sql, schema, dialect=dialect)
    except prism_lineage.PrismError as error:
        assert error.exit_code not in (1, 70), f"{type(error).__name__}: {error}"


def test_a_generator_is_no_group_by_all_key() -> None:
    with pytest.raises(InvalidStatementError) as error:
        prism_lineage.explain("SELECT posexplode(l) FROM t1 GROUP BY ALL", {"t1": {"l": "ARRAY<INT>"}}, dialect="spark")
    assert "generators cannot be grouping keys" in error.value.message
    assert (error.value.line, error.value.column) == (1, 8)


# --- ``<value>.*`` (a whole row or a struct value, BigQuery) -----------------------------------


ROWS = {"main_users": {"id": "int", "name": "string", "created_at": "timestamp"},
        "external_users": {"id": "int", "name": "string", "created_at": "timestamp"},
        "orders": {"id": "int", "amount": "numeric"}}


def test_a_choice_between_two_rows_is_one_field_per_column() -> None:
    """DataHub's ``test_bigquery_indirect_references``: the output has the rows' columns, each the
    same choice over that column (never one field named by the expression's text)."""
    found = sources("SELECT IF(main.id IS NOT NULL, main, extras).* REPLACE (least(main.created_at, extras.created_at) "
                    "AS created_at) FROM main_users main FULL JOIN external_users extras USING (id)", ROWS, "bigquery")
    assert list(found) == ["id", "name", "created_at"]
    assert found["name"] == [("external_users.name", "expression", "exact"), ("main_users.id", "expression", "exact"),
                             ("main_users.name", "expression", "exact")]
    assert [c for c, _, _ in found["created_at"]] == ["external_users.created_at", "main_users.created_at"]


@pytest.mark.parametrize("sql, schema, message", [
    ("SELECT IF(o.id > 1, m, o).* FROM main_users m JOIN orders o USING (id)", ROWS,
     "do not have the same columns in the same order"),
    ("SELECT IF(m.id > 1, m, e).* FROM main_users m JOIN external_users e USING (id)", None,
     "are not known (no schema)"),
    ("SELECT STRUCT(1, id).* FROM orders", ROWS, "struct type is not known"),
    ("SELECT (id + 1).* FROM orders", ROWS, "not a struct"),
])
def test_a_star_over_a_value_whose_fields_are_unknown_is_refused(sql, schema, message) -> None:
    """One output standing for fields nobody can name would be a column the output does not have."""
    with pytest.raises(InvalidStatementError) as error:
        prism_lineage.explain(sql, schema, dialect="bigquery")
    assert message in error.value.message
    assert error.value.line == 1 and error.value.column >= 8


def test_a_struct_constructors_star_is_its_named_fields() -> None:
    found = sources("SELECT STRUCT(amount AS a, id AS b).* EXCEPT (b) FROM orders", ROWS, "bigquery")
    assert list(found) == ["a"] and [c for c, _, _ in found["a"]] == ["orders.amount"]


# Field trial 15: a qualified EXCLUDE over a join drops only that FROM item's column.
QUALIFIED_EXCLUDE_CASES = [
    ("SELECT * EXCLUDE (t1.id) FROM t1 JOIN t2 ON t1.id = t2.id", ["t1.a", "t1.b", "t2.id", "t2.a", "t2.c"]),
    ("SELECT * EXCLUDE (t2.id) FROM t1 JOIN t2 ON t1.id = t2.id", ["t1.id", "t1.a", "t1.b", "t2.a", "t2.c"]),
    ("SELECT * EXCLUDE (T1.ID, t2.a) FROM t1 JOIN t2 ON t1.id = t2.id", ["t1.a", "t1.b", "t2.id", "t2.c"]),
    ("SELECT * EXCLUDE (id) FROM t1 JOIN t2 ON t1.id = t2.id", ["t1.a", "t1.b", "t2.a", "t2.c"]),
    ("SELECT t1.* EXCLUDE (t1.id) FROM t1 JOIN t2 ON t1.id = t2.id", ["t1.a", "t1.b"]),
    ("SELECT * EXCLUDE (x.id) FROM t1 JOIN t2 AS x ON t1.id = x.id", ["t1.id", "t1.a", "t1.b", "t2.a", "t2.c"]),
]


@pytest.mark.parametrize("sql, reads", QUALIFIED_EXCLUDE_CASES)
def test_a_qualified_exclude_drops_that_column_only(database, sql, reads) -> None:
    names = [d[0] for d in database.execute(sql).description]
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in statement.fields] == names
    for field, column in zip(statement.fields, reads, strict=True):
        assert [s.column for s in field.sources if s.relationship == "value"] == [column], field.name


@pytest.mark.parametrize("sql, message", [
    ("SELECT * EXCLUDE (x.id) FROM t1 JOIN t2 ON t1.id = t2.id", "unknown table or alias 'x'"),
    ("SELECT * EXCLUDE (t1.c) FROM t1 JOIN t2 ON t1.id = t2.id", "unknown column 'c' of t1"),
    ("SELECT t1.* EXCLUDE (t2.id) FROM t1 JOIN t2 ON t1.id = t2.id", "t2.id is not one of the columns the star"),
])
def test_a_qualified_exclude_duckdb_refuses_is_refused_with_where(database, sql, message) -> None:
    with pytest.raises(duckdb.Error):
        database.execute(sql)
    with pytest.raises(prism_lineage.PrismError) as error:
        prism_lineage.explain(sql, SCHEMA, dialect="duckdb")
    assert message in error.value.message
    assert error.value.line == 1 and error.value.column >= 18


def test_a_qualified_exclude_of_a_using_column_is_refused(database) -> None:
    """DuckDB then lists the other side's column where that side stands (not the merged one):
    not modelled, so refused rather than answered."""
    sql = "SELECT * EXCLUDE (t1.id) FROM t1 JOIN t2 USING (id)"
    assert [d[0] for d in database.execute(sql).description] == ["a", "b", "id", "a", "c"]
    with pytest.raises(InvalidStatementError, match="merged by a USING join"):
        prism_lineage.explain(sql, SCHEMA, dialect="duckdb")


def test_a_qualified_exclude_of_an_undeclared_table_keeps_its_star_unknown() -> None:
    [statement] = prism_lineage.explain("SELECT * EXCLUDE (u.id) FROM t1 JOIN u ON t1.id = u.id", SCHEMA,
                                        dialect="duckdb").statements
    assert [f.name for f in statement.fields] == ["id", "a", "b", "*"]
    assert {s.confidence for s in statement.fields[-1].sources if s.relationship == "value"} == {"unknown"}


def test_group_by_a_position_past_an_unknown_star_is_refused() -> None:
    """GROUP BY 2 after ``*`` over a table without a schema names a column nobody can tell: a
    grouping key reported on a guess would be a wrong answer."""
    with pytest.raises(InvalidStatementError) as error:
        prism_lineage.explain("SELECT *, x AS k FROM t GROUP BY 2", None, dialect="duckdb")
    assert "GROUP BY 2 counts the select list past *" in error.value.message
    assert (error.value.line, error.value.column) == (1, 34)


def test_a_right_column_of_an_anti_join_is_unknown() -> None:
    """Only the join condition sees the right side of a SEMI/ANTI join (DuckDB: 'Referenced
    column "c" not found'); field trial 14."""
    schema = {"t": {"id": "int", "a": "int", "b": "int"}, "s": {"id": "int", "a": "int", "c": "int"}}
    with pytest.raises(prism_lineage.UnknownColumnError) as error:
        prism_lineage.explain("SELECT c FROM t ANTI JOIN s ON t.id = s.id", schema, dialect="duckdb")
    assert error.value.column == 8
