"""DuckDB as the oracle for the field trials of session 4 (/work/coord/trials/24-33).

Every query runs in DuckDB on tables whose payload columns hold values no other column holds
(join keys share values so that joins match): a value that lands in an output column names the
input column it came from.  The answer must have DuckDB's output columns, in DuckDB's order, and
every input column whose values DuckDB put into an output must be one of that field's value
sources; an identity source must be the column DuckDB shows there.
"""

from __future__ import annotations

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import prism_lineage

# k: a join key (the same values 1..3 in every table); every other column is a payload.
TABLES = {
    "x": ["k", "a", "b"],
    "y": ["k", "c", "b"],
    "z": ["k", "e"],
}
SCHEMA = {table: {column: "bigint" for column in columns} for table, columns in TABLES.items()}
ROWS = 3


def _code(table: str, column: str, row: int) -> int:
    # 1xx00r: table index, column index, row — payloads are unique across the database.
    t = list(TABLES).index(table) + 1
    c = TABLES[table].index(column) + 1
    return (t * 100 + c) * 1000 + row


@pytest.fixture(scope="module")
def database():
    connection = duckdb.connect()
    for table, columns in TABLES.items():
        connection.execute(f"CREATE TABLE {table} ({', '.join(f'{c} BIGINT' for c in columns)})")
        for row in range(1, ROWS + 1):
            values = [row if c == "k" else _code(table, c, row) for c in columns]
            connection.execute(f"INSERT INTO {table} VALUES ({', '.join(map(str, values))})")
    yield connection
    connection.close()


def _origin(value) -> str | None:
    if isinstance(value, int) and value >= 100000:
        code, row = divmod(value, 1000)
        t, c = divmod(code, 100)
        if 1 <= row <= ROWS and 1 <= t <= len(TABLES):
            table = list(TABLES)[t - 1]
            if 1 <= c <= len(TABLES[table]):
                return f"{table}.{TABLES[table][c - 1]}"
    return None


def agrees_with_duckdb(connection, sql: str, dialect: str = "duckdb", script: tuple[str, ...] = ()) -> None:
    """``script``: statements run before ``sql`` (explained together, through the script); then
    which of a column's possible sources survive depends on the data (a conditional UPDATE keeps
    old or new values), so only "every value seen comes from a named source" is checked."""
    for statement_sql in script:
        connection.execute(statement_sql)
    result = connection.execute(sql)
    names = [d[0] for d in result.description]
    rows = result.fetchall()
    text = ";\n".join(script + (sql,))
    statement = prism_lineage.explain(text, SCHEMA, dialect=dialect, through_script=bool(script)).statements[-1]
    assert [f.name.lower() for f in statement.fields] == [n.lower() for n in names], sql
    for position, field in enumerate(statement.fields):
        seen = {_origin(row[position]) for row in rows} - {None}
        values = {s.column for s in field.sources if s.relationship == "value"}
        assert seen <= values, (sql, field.name, seen, values)
        identity = {s.column for s in field.sources if s.relationship == "value" and s.transformation == "identity"}
        if identity and seen and not script:
            assert identity <= seen, (sql, field.name, seen, identity)


# --- trial 24: a parenthesized join headed by a derived table ---------------------------------

DERIVED = st.sampled_from(["(SELECT *, k AS dk FROM x)", "(SELECT k AS dk, a FROM x)", "(SELECT b, k AS dk FROM x)",
                           "(SELECT k AS dk, a FROM x UNION ALL SELECT k, c FROM y)"])
OTHER = st.sampled_from(["y", "z", "(SELECT * FROM z)"])


@settings(max_examples=30, deadline=None)
@given(derived=DERIVED, other=OTHER, alias=st.booleans(), kind=st.sampled_from(["JOIN", "LEFT JOIN"]),
       outer=st.booleans(), star=st.booleans())
def test_a_derived_table_heading_a_parenthesized_join_keeps_the_join(database, derived, other, alias, kind,
                                                                      outer, star) -> None:
    left = f"{derived} AS s" if alias else derived
    group = f"({left} {kind} {other} AS o ON dk = o.k)"
    if outer:
        group = f"({group} JOIN x AS w ON w.k = o.k)"
    agrees_with_duckdb(database, f"SELECT {'*' if star else 'o.*, dk'} FROM {group}")


# --- trial 25: a table alias naming fewer columns than the table has -------------------------

@settings(max_examples=20, deadline=None)
@given(table=st.sampled_from(list(TABLES)), count=st.integers(min_value=1, max_value=3), star=st.booleans())
def test_a_partial_alias_list_renames_the_first_columns_only(database, table, count, star) -> None:
    names = ["p", "q", "r"][:min(count, len(TABLES[table]))]
    rest = TABLES[table][len(names):]
    items = "*" if star or not rest else ", ".join([f"s.{names[0]}"] + [f"s.{c}" for c in rest])
    agrees_with_duckdb(database, f"SELECT {items} FROM {table} AS s({', '.join(names)})")


def test_more_alias_names_than_columns_is_an_error_naming_both_counts() -> None:
    with pytest.raises(prism_lineage.InvalidStatementError, match="s names 4 columns but z has 2"):
        prism_lineage.explain("SELECT * FROM z AS s(a, b, c, d)", SCHEMA, dialect="postgres")


# --- trial 33: through a script, an UPDATE / DELETE of every row ------------------------------

CHANGES = st.sampled_from([
    "UPDATE w SET a = 7",
    "UPDATE w SET a = (SELECT max(c) FROM y WHERE y.k = w.k)",
    "UPDATE w SET a = b, b = a",
    "UPDATE w SET a = 7 WHERE k > 1",
    "UPDATE w SET a = y.c FROM y WHERE y.k = w.k AND y.k < 3",
    "DELETE FROM w",
    "DELETE FROM w WHERE k = 2",
    "INSERT INTO w SELECT k, e, e FROM z",
])


@settings(max_examples=25, deadline=None)
@given(changes=st.lists(CHANGES, min_size=1, max_size=3))
def test_a_script_reads_what_its_updates_and_deletes_left(changes) -> None:
    connection = duckdb.connect()
    try:
        for table, columns in TABLES.items():
            connection.execute(f"CREATE TABLE {table} ({', '.join(f'{c} BIGINT' for c in columns)})")
            for row in range(1, ROWS + 1):
                values = [row if c == "k" else _code(table, c, row) for c in columns]
                connection.execute(f"INSERT INTO {table} VALUES ({', '.join(map(str, values))})")
        script = ("CREATE TABLE w AS SELECT k, a, b FROM x", *changes)
        agrees_with_duckdb(connection, "SELECT * FROM w", script=script)
    finally:
        connection.close()


@pytest.mark.parametrize("change, column, sources", [
    ("UPDATE w SET a = 7", "a", set()),
    ("UPDATE w SET a = (SELECT max(c) FROM y WHERE y.k = w.k)", "a", {"y.c"}),
    ("UPDATE w SET a = b, b = a", "b", {"x.a"}),
    ("DELETE FROM w", "b", set()),
    # Only some rows change: the old value may remain.
    ("UPDATE w SET a = 7 WHERE k > 1", "a", {"x.a"}),
    ("UPDATE w SET a = y.c FROM y WHERE y.k = w.k", "a", {"x.a", "y.c"}),
    ("DELETE FROM w WHERE k = 2", "b", {"x.b"}),
])
def test_an_update_or_delete_of_every_row_leaves_no_old_value(change, column, sources) -> None:
    script = f"CREATE TABLE w AS SELECT k, a, b FROM x; {change}; SELECT {column} FROM w"
    [field] = prism_lineage.explain(script, SCHEMA, dialect="duckdb", through_script=True).statements[-1].fields
    assert {s.column for s in field.sources if s.relationship == "value"} == sources


# --- trial 34: MySQL's UPDATE / DELETE … ORDER BY … LIMIT ------------------------------------

@pytest.mark.parametrize("sql", [
    "DELETE FROM x ORDER BY a DESC LIMIT 2",
    "UPDATE x SET b = 1 ORDER BY a LIMIT 1",
    "DELETE FROM x WHERE k > 1 ORDER BY a LIMIT 1",
])
def test_the_order_that_picks_the_changed_rows_is_control(sql) -> None:
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect="mysql").statements
    assert ("x.a", "control") in {(s.column, s.relationship) for s in statement.rows}
    for field in statement.fields:
        assert ("x.a", "control") in {(s.column, s.relationship) for s in field.sources}


def test_an_order_without_a_limit_changes_nothing_written() -> None:
    [statement] = prism_lineage.explain("UPDATE x SET b = 1 ORDER BY a", SCHEMA, dialect="mysql").statements
    assert statement.rows == [] and statement.fields[0].sources == []


# --- trial 29: BigQuery's UNNEST of an array of structs is a value table -----------------------
# No BigQuery here: the expected columns are BigQuery's documented ones ("a separate column for
# each field in the STRUCT"), as sqlglot's own qualify_columns fixture expands them.

NESTED = {"t": {"id": "INT64", "items": "ARRAY<STRUCT<sku STRING, qty INT64>>", "arr": "ARRAY<INT64>"}}


@pytest.mark.parametrize("sql, names", [
    ("SELECT * FROM t, UNNEST(items)", ["id", "items", "arr", "sku", "qty"]),
    ("SELECT * FROM t, UNNEST(items) AS it", ["id", "items", "arr", "sku", "qty"]),
    ("SELECT it.* FROM t, UNNEST(items) AS it", ["sku", "qty"]),
    ("SELECT it, it.sku FROM t, UNNEST(items) AS it", ["it", "sku"]),
    ("SELECT * FROM t, UNNEST(arr) AS x WITH OFFSET", ["id", "items", "arr", "x", "offset"]),
    ("SELECT * FROM UNNEST(ARRAY<STRUCT<a INT64, b STRING>>[(1, 'x')]) AS s", ["a", "b"]),
])
def test_bigquery_star_over_unnest_of_structs_lists_the_fields(sql, names) -> None:
    [statement] = prism_lineage.explain(sql, NESTED, dialect="bigquery").statements
    assert [f.name.lower() for f in statement.fields] == names


# --- trial 32: Spark's SELECT TRANSFORM … USING 'script' ---------------------------------------

@pytest.mark.parametrize("sql, names", [
    ("SELECT TRANSFORM(a, b) USING 'cat' AS (p, q) FROM x", ["p", "q"]),
    ("SELECT TRANSFORM(a, b) USING 'cat' AS (p INT, q STRING) FROM x", ["p", "q"]),
    ("SELECT TRANSFORM(a, b) USING 'cat' FROM x", ["key", "value"]),
    ("SELECT TRANSFORM(*) USING 'cat' AS (p) FROM x", ["p"]),
])
def test_a_script_transform_makes_its_listed_columns_from_every_input(sql, names) -> None:
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect="spark").statements
    assert [f.name for f in statement.fields] == names
    read = {"x.k", "x.a", "x.b"} if "(*)" in sql else {"x.a", "x.b"}
    for field in statement.fields:
        assert {(s.column, s.confidence) for s in field.sources} == {(c, "conservative") for c in read}
    assert {u.field for u in statement.uncertain} == set(names)


# --- trial 35: DuckDB's positional columns #n ---------------------------------------------------

@pytest.mark.parametrize("sql", [
    "SELECT #3, #1 FROM x",
    "SELECT #2 AS q FROM x WHERE #1 > 1",
    "SELECT b, k FROM x ORDER BY #2 DESC LIMIT 1",
    "SELECT #2, #5 FROM x JOIN y ON x.k = y.k",
    "SELECT max(#2) AS m FROM x GROUP BY #1",
])
def test_positional_columns_give_duckdbs_columns(database, sql) -> None:
    agrees_with_duckdb(database, sql)


@pytest.mark.parametrize("sql, control", [
    ("SELECT #2 AS q FROM x WHERE #3 > 1", "x.b"),
    ("SELECT b, a FROM x ORDER BY #2 LIMIT 1", "x.a"),  # ORDER BY #n: the n-th select item
])
def test_positional_columns_drive_filters_and_orders(sql, control) -> None:
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    for field in statement.fields:
        assert (control, "control") in {(s.column, s.relationship) for s in field.sources}
