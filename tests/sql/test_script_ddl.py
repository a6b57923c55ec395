"""DDL that changes tables in a script (ddl.py, scripts.py): each dialect's spelling read into
the same changes, later statements resolving names against the changed catalog, and DDL that
cannot apply (a column that is not there, or is there already) a clear error naming it."""

from __future__ import annotations

import pytest

import prism_lineage
from prism_lineage.catalog import Catalog
from prism_lineage.cli import main
from prism_lineage.errors import InvalidStatementError, UnknownColumnError
from prism_lineage.explain import lower
from prism_lineage.frontends.sql import ddl
from prism_lineage.frontends.sql.context import LoweringContext
from prism_lineage.frontends.sql.dialects import Normalizer, get_dialect
from prism_lineage.frontends.sql.parsing import parse_statements
from prism_lineage.ir import SourceText

SCHEMA = {"orders": {"order_id": "int", "customer_id": "int", "status": "varchar", "amount": "decimal"}}


def changes(sql: str, dialect: str) -> list:
    sql_dialect = get_dialect(dialect)
    text = SourceText(sql, None, None)
    [node] = parse_statements(sql, sql_dialect, text)
    ctx = LoweringContext(statement=0, text=text, catalog=Catalog([]), normalizer=Normalizer(sql_dialect),
                          dialect=sql_dialect)
    found = ddl.table_changes(node, ctx, None)
    # Positions are checked by the error tests; here only what changes.
    return [type(c)(**{k: getattr(c, k) for k in c.__slots__ if k != "at"}) for c in found.changes] if found else []


T = ("t",)


@pytest.mark.parametrize("dialect, sql, expected", [
    ("duckdb", "ALTER TABLE t RENAME TO u", [ddl.RenameTable(T, ("u",))]),
    ("postgres", "ALTER TABLE IF EXISTS s.t RENAME TO u", [ddl.RenameTable(("s", "t"), ("u",))]),
    ("snowflake", "ALTER TABLE t RENAME TO u", [ddl.RenameTable(("T",), ("U",))]),
    ("bigquery", "ALTER TABLE ds.t RENAME TO u", [ddl.RenameTable(("ds", "t"), ("u",))]),
    ("spark", "ALTER TABLE db.t RENAME TO db.u", [ddl.RenameTable(("db", "t"), ("db", "u"))]),
    ("tsql", "EXEC sp_rename 'dbo.t', 'u'", [ddl.RenameTable(("dbo", "t"), ("u",))]),
    ("tsql", "EXEC sp_rename @objname = N'[my t]', @newname = N'u'", [ddl.RenameTable(("my t",), ("u",))]),
    ("snowflake", "ALTER TABLE t SWAP WITH u", [ddl.SwapTables(("T",), ("U",))]),
    ("duckdb", "ALTER TABLE t RENAME COLUMN a TO b", [ddl.RenameColumn(T, "a", "b")]),
    ("postgres", "ALTER TABLE t RENAME a TO b", [ddl.RenameColumn(T, "a", "b")]),
    ("bigquery", "ALTER TABLE t RENAME COLUMN IF EXISTS a TO b", [ddl.RenameColumn(T, "a", "b", True)]),
    ("tsql", "EXEC sp_rename 't.a', 'b', 'COLUMN'", [ddl.RenameColumn(T, "a", "b")]),
    ("spark", "ALTER TABLE t CHANGE COLUMN a b INT", [ddl.RenameColumn(T, "a", "b"), ddl.RetypeColumn(T, "b", "INT")]),
    ("mysql", "ALTER TABLE t CHANGE a b BIGINT", [ddl.RenameColumn(T, "a", "b"), ddl.RetypeColumn(T, "b", "BIGINT")]),
    ("postgres", "ALTER TABLE t ADD COLUMN c INT, ADD d TEXT",
     [ddl.AddColumn(T, ddl.NewColumn("c", "INT")), ddl.AddColumn(T, ddl.NewColumn("d", "TEXT"))]),
    ("bigquery", "ALTER TABLE t ADD COLUMN IF NOT EXISTS c INT64", [ddl.AddColumn(T, ddl.NewColumn("c", "INT64"), True)]),
    ("tsql", "ALTER TABLE t ADD c INT, d INT",
     [ddl.AddColumn(T, ddl.NewColumn("c", "INTEGER")), ddl.AddColumn(T, ddl.NewColumn("d", "INTEGER"))]),
    ("spark", "ALTER TABLE t ADD COLUMNS (c INT, d STRING)",
     [ddl.AddColumn(T, ddl.NewColumn("c", "INT")), ddl.AddColumn(T, ddl.NewColumn("d", "STRING"))]),
    ("snowflake", "ALTER TABLE t DROP COLUMN c, d", [ddl.DropColumn(("T",), "C"), ddl.DropColumn(("T",), "D")]),
    ("postgres", "ALTER TABLE t DROP COLUMN IF EXISTS c CASCADE", [ddl.DropColumn(T, "c", True)]),
    ("spark", "ALTER TABLE t DROP COLUMNS (c, d)", [ddl.DropColumn(T, "c"), ddl.DropColumn(T, "d")]),
    ("duckdb", "ALTER TABLE t ALTER COLUMN c TYPE BIGINT", [ddl.RetypeColumn(T, "c", "BIGINT")]),
    ("snowflake", "ALTER TABLE t ALTER COLUMN c SET DATA TYPE NUMBER(38, 0)",
     [ddl.RetypeColumn(("T",), "C", "DECIMAL(38, 0)")]),
    ("spark", "ALTER TABLE t REPLACE COLUMNS (a INT, z STRING)",
     [ddl.ReplaceColumns(T, (ddl.NewColumn("a", "INT"), ddl.NewColumn("z", "STRING")))]),
    ("duckdb", "DROP TABLE IF EXISTS t, u", [ddl.DropTable(T), ddl.DropTable(("u",))]),
    ("tsql", "DROP TABLE #t", [ddl.DropTable(("#t",))]),
    ("snowflake", "DROP VIEW v", [ddl.DropTable(("V",))]),
])
def test_each_dialect_spelling_is_read_into_the_same_changes(dialect, sql, expected) -> None:
    assert changes(sql, dialect) == expected


@pytest.mark.parametrize("dialect, sql", [
    ("postgres", "ALTER TABLE t ADD CONSTRAINT pk PRIMARY KEY (a)"),
    ("postgres", "ALTER TABLE t ALTER COLUMN c SET DEFAULT 1"),
    ("tsql", "EXEC sp_rename 'ix_t', 'ix_u', 'INDEX'"),
    ("tsql", "EXEC some_procedure 't', 'u'"),
    ("duckdb", "DROP SCHEMA s"),
])
def test_ddl_that_changes_no_column_is_no_change(dialect, sql) -> None:
    assert changes(sql, dialect) == []


def explain(sql: str, dialect: str = "duckdb", **options):
    return prism_lineage.explain(sql, schema=SCHEMA, dialect=dialect, **options).statements


def test_renaming_a_column_that_is_not_there_names_it() -> None:
    with pytest.raises(UnknownColumnError) as caught:
        explain("SELECT 1;\nALTER TABLE orders RENAME COLUMN amout TO total")
    assert str(caught.value) == ("unknown column 'amout' of orders (did you mean amount?); available: order_id, customer_id, status, amount "
                                 "(at statement 2, line 2, column 34)")


def test_adding_a_column_that_is_there_names_it() -> None:
    with pytest.raises(InvalidStatementError, match=r"^column 'amount' of orders already exists \(at line 1, column 31\)$"):
        explain("ALTER TABLE orders ADD COLUMN amount DECIMAL")


def test_a_dropped_column_is_no_longer_there() -> None:
    with pytest.raises(UnknownColumnError, match="unknown column 'status' of orders; available: order_id, customer_id, amount"):
        explain("ALTER TABLE orders DROP COLUMN status; SELECT status FROM orders")


def test_if_exists_and_if_not_exists_change_nothing_when_they_do_not_apply() -> None:
    last = explain("ALTER TABLE orders ADD COLUMN IF NOT EXISTS amount INT; "
                   "ALTER TABLE orders DROP COLUMN IF EXISTS nope; SELECT * FROM orders", dialect="postgres")[-1]
    assert [f.name for f in last.fields] == ["order_id", "customer_id", "status", "amount"]


def test_a_retyped_column_keeps_its_lineage_and_takes_its_new_type() -> None:
    statements = prism_lineage.explain("ALTER TABLE orders ALTER COLUMN amount TYPE BIGINT; SELECT amount FROM orders",
                                       schema=SCHEMA, dialect="postgres", through_script=True).statements
    assert [(s.column, s.relationship) for s in statements[-1].fields[0].sources] == [("orders.amount", "value")]
    plan = lower("ALTER TABLE orders ALTER COLUMN amount TYPE BIGINT; SELECT amount FROM orders", SCHEMA, "postgres")
    assert plan[-1].root.fields[0].type == "BIGINT"


def test_rows_written_into_a_table_of_unknown_columns_stop_the_read_through_the_script() -> None:
    """Rows written by position into columns nobody knows cannot be told apart: the read is of
    the table itself, said so (it used to lose the written rows' lineage)."""
    last = prism_lineage.explain(
        "CREATE TABLE t AS SELECT * FROM raw; INSERT INTO t SELECT a, b FROM other; SELECT x FROM t",
        dialect="duckdb", through_script=True).statements[-1]
    assert [s.column for s in last.fields[0].sources] == ["t.x"]
    assert [u.reason for u in last.uncertain] == [
        "the columns of t are not known and rows were written into it (INSERT at line 1): lineage through the "
        "script stops at t"]


def test_the_cli_reports_a_ddl_error_on_one_line(tmp_path, capsys) -> None:
    script = tmp_path / "migrate.sql"
    script.write_text("ALTER TABLE orders RENAME COLUMN amout TO total;\n", encoding="utf-8")
    schema = tmp_path / "schema.json"
    schema.write_text('{"orders": {"order_id": "int", "amount": "decimal"}}', encoding="utf-8")
    code = main(["explain", str(script), "--schema", str(schema), "--through-script"])
    out, err = capsys.readouterr()
    assert code == 5 and out == ""
    assert err == ("prism-lineage: error: unknown column 'amout' of orders (did you mean amount?); available: order_id, amount "
                   "(at line 1, column 34)\n")
