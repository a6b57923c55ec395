"""DuckDB's PIVOT / UNPIVOT statements (field trial 16), DuckDB itself the oracle for the
output columns: several ON columns (``Q1_r1``, each filtered on every ON column), no IN (the
implicit group keys kept), no USING (a count), the UNPIVOT statement — in a CTE and a
subquery too."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage
from prism_lineage import InvalidStatementError

SCHEMA = {"sales": {"region": "varchar", "quarter": "varchar", "amount": "int", "units": "int"}}


@pytest.fixture(scope="module")
def database():
    connection = duckdb.connect()
    connection.execute("CREATE TABLE sales (region VARCHAR, quarter VARCHAR, amount INT, units INT); "
                       "INSERT INTO sales VALUES ('r1', 'Q1', 1, 10), ('r1', 'Q2', 2, 20), ('r2', 'Q1', 3, 30)")
    yield connection
    connection.close()


# (statement, the ON columns every pivoted field is filtered on)
NAMED = [
    ("PIVOT sales ON quarter IN ('Q1', 'Q2'), region IN ('r1', 'r2') USING SUM(amount) GROUP BY units",
     {"sales.quarter", "sales.region"}),
    ("PIVOT sales ON quarter IN ('Q1'), region IN ('r1') USING SUM(amount) AS s, max(units) GROUP BY units",
     {"sales.quarter", "sales.region"}),
    ("PIVOT sales ON quarter IN ('Q1') USING SUM(amount), max(units)", {"sales.quarter"}),
    ("PIVOT sales ON quarter IN ('Q1') USING SUM(amount) AS s", {"sales.quarter"}),
    ("PIVOT sales ON quarter IN ('Q1'), region IN ('r1') USING SUM(amount)", {"sales.quarter", "sales.region"}),
    ("PIVOT sales ON quarter IN ('Q1', 'Q2') GROUP BY region", {"sales.quarter"}),
    ("PIVOT sales ON quarter IN ('Q1', 'Q2')", {"sales.quarter"}),
    ("PIVOT sales ON quarter IN (NULL, 'Q1') USING SUM(amount)", {"sales.quarter"}),
    ("SELECT * FROM sales PIVOT (sum(amount) FOR quarter IN ('Q1') region IN ('r1'))",
     {"sales.quarter", "sales.region"}),
    ("WITH p AS (PIVOT sales ON quarter IN ('Q1'), region IN ('r1') USING SUM(amount)) SELECT * FROM p",
     {"sales.quarter", "sales.region"}),
]


@pytest.mark.parametrize("sql, on", NAMED)
def test_pivot_statement_gives_duckdbs_columns(database, sql, on) -> None:
    names = [d[0] for d in database.execute(sql).description]
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in statement.fields] == names
    assert statement.uncertain == []
    keys = {f.name for f in statement.fields if any(s.relationship == "value" and s.transformation == "identity"
                                                    for s in f.sources)}
    for field in statement.fields:
        control = {s.column for s in field.sources if s.relationship == "control"}
        assert control == (set() if field.name in keys else on), field.name
        if field.name not in keys:
            values = [s for s in field.sources if s.relationship == "value"]
            if sql.startswith("PIVOT") and "USING" not in sql:
                assert values == [], field.name  # without USING each cell counts its rows: no value source
            else:
                assert values and {s.transformation for s in values} == {"aggregate"}, field.name


@pytest.mark.parametrize("sql", [
    "PIVOT sales ON quarter USING SUM(amount)",
    "PIVOT sales ON quarter",
    "PIVOT sales ON quarter, region USING SUM(amount) GROUP BY units",
])
def test_without_in_the_keys_are_kept_and_the_values_said_unknown(database, sql) -> None:
    names = [d[0] for d in database.execute(sql).description]
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    known = [f.name for f in statement.fields if f.name != "*"]
    assert known == names[:len(known)]  # the group keys, in DuckDB's order
    [star] = [f for f in statement.fields if f.name == "*"]
    assert {s.column for s in star.sources if s.relationship == "control"} == \
        {"sales." + c for c in ("quarter", "region") if c in sql.split("USING")[0].split(" ON ")[1]}
    assert any("without IN" in u.reason for u in statement.uncertain)


@pytest.mark.parametrize("sql", [
    "UNPIVOT sales ON amount, units INTO NAME measure VALUE val",
    "UNPIVOT sales ON amount, units",
    "UNPIVOT sales ON (amount, units) AS both_ INTO NAME m VALUE v1, v2",
    "SELECT * FROM (UNPIVOT sales ON amount, units) AS u",
])
def test_unpivot_statement_gives_duckdbs_columns(database, sql) -> None:
    names = [d[0] for d in database.execute(sql).description]
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in statement.fields] == names
    label = statement.fields[2]
    assert not [s for s in label.sources if s.relationship == "value"]  # a constant
    for value in statement.fields[3:]:
        assert {s.column for s in value.sources if s.relationship == "value"} <= {"sales.amount", "sales.units"}


@pytest.mark.parametrize("sql, message", [
    ("PIVOT sales USING sum(amount) GROUP BY region", "a PIVOT statement without ON is not read"),
    ("UNPIVOT sales ON COLUMNS(* EXCLUDE (region, quarter)) INTO NAME m VALUE v", "UNPIVOT ON COLUMNS("),
    ("PIVOT sales ON quarter || region IN ('Q1r1') USING SUM(amount)", "only a column before IN is read"),
])
def test_forms_not_read_are_refused_with_where(database, sql, message) -> None:
    database.execute(sql)  # valid DuckDB
    with pytest.raises(InvalidStatementError) as error:
        prism_lineage.explain(sql, SCHEMA, dialect="duckdb")
    assert message in error.value.message
    assert error.value.line == 1


# --- field trials 54-56 (session 6): DuckDB's test suite forms, DuckDB the oracle ----------------

@pytest.mark.parametrize("sql", [
    "PIVOT sales ON quarter IN ('Q1', 'Q2') USING SUM(amount + 1)",
    "PIVOT sales ON quarter IN ('Q1', 'Q2') USING SUM(amount + units) GROUP BY region",
    "SELECT * FROM sales PIVOT (SUM(amount + 1) FOR quarter IN ('Q1', 'Q2'))",
    "SELECT * FROM sales PIVOT (SUM(amount * 2) AS s, MAX(units - 1) AS m FOR quarter IN ('Q1', 'Q2'))",
])
def test_a_column_an_aggregate_reads_in_an_expression_is_no_group_key(database, sql) -> None:
    """Trial 55: ``SUM(amount + 1)`` reads amount, so amount is neither a key nor a column."""
    names = [d[0] for d in database.execute(sql).description]
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in statement.fields] == names
    keys = {"sales." + n for n in names if n in SCHEMA["sales"]}  # DuckDB's group keys
    assert "sales.amount" not in keys
    for field in statement.fields:
        assert {s.column for s in field.sources if s.relationship == "grouping"} == keys, field.name


@pytest.mark.parametrize("sql", [
    "PIVOT sales ON quarter IN (SELECT DISTINCT quarter FROM sales ORDER BY quarter DESC) USING SUM(amount)",
    "PIVOT sales ON quarter IN quarters USING SUM(amount) GROUP BY region",
    "SELECT * FROM sales PIVOT (SUM(amount) FOR quarter IN quarters) AS p",
])
def test_values_known_at_run_time_are_a_star(database, sql) -> None:
    """Trial 54: ``IN enum_type`` / ``IN (SELECT …)``: the columns are values the SQL does not
    spell — the keys DuckDB gives, then '*' (said), never the input's columns exact."""
    database.execute("CREATE TYPE IF NOT EXISTS quarters AS ENUM ('Q1', 'Q2')")
    names = [d[0] for d in database.execute(sql).description]
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    known = [f.name for f in statement.fields if f.name != "*"]
    assert known == names[:len(known)] and len(names) > len(known)
    assert "amount" not in known
    [star] = [f for f in statement.fields if f.name == "*"]
    assert {(s.column, s.transformation) for s in star.sources if s.relationship == "value"} == \
        {("sales.amount", "aggregate")}
    assert "sales.quarter" in {s.column for s in star.sources if s.relationship == "control"}
    assert any("found at run time" in u.reason for u in statement.uncertain)


def test_an_unpivoted_expression_consumes_its_column(database) -> None:
    """Trial 56: ``IN (amount::VARCHAR, quarter)`` unpivots amount (labelled amount), not kept."""
    sql = "SELECT * FROM sales UNPIVOT (value FOR name IN (amount::VARCHAR, quarter))"
    cursor = database.execute(sql)
    names = [d[0] for d in cursor.description]
    labels = {row[names.index("name")] for row in cursor.fetchall()}
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in statement.fields] == names == ["region", "units", "name", "value"]
    value = statement.fields[3]
    assert {(s.column, s.transformation) for s in value.sources if s.relationship == "value"} == \
        {("sales.amount", "expression"), ("sales.quarter", "identity")}
    assert labels == {"amount", "quarter"}
    bad = "SELECT * FROM sales UNPIVOT (value FOR name IN ((amount + units)::VARCHAR, quarter))"
    with pytest.raises(duckdb.BinderException):
        database.execute(bad)
    with pytest.raises(InvalidStatementError) as error:
        prism_lineage.explain(bad, SCHEMA, dialect="duckdb")
    assert "exactly one column" in error.value.message
