"""A table missing from a given schema (issue 9 item 12; specs/uncertainty.md rule 7): read
without one and said in ``uncertain`` with the closest declared names; ``strict`` refuses it
(exit code 5); unknown-column errors name the table as the schema spells it and the closest
column."""

from __future__ import annotations

import json
import subprocess

import pytest

import prism_lineage
from prism_lineage.errors import MissingTableError, UnknownColumnError

SHOP = {"orders": {"order_id": "int", "amount": "int", "status": "varchar"},
        "order_items": {"order_id": "int", "price": "int"},
        "customers": {"customer_id": "int", "name": "varchar"}}


def test_a_table_not_in_the_schema_is_said_with_the_closest_names() -> None:
    answer = prism_lineage.explain("SELECT amount FROM ordrs", schema=SHOP).statements[0]
    assert [s.column for s in answer.fields[0].sources] == ["ordrs.amount"]
    [note] = answer.uncertain
    assert note.field is None
    assert note.reason == ("ordrs is not in the schema: it is read without one, each column as the query names it; "
                           "did you mean orders or order_items?")


def test_without_a_schema_nothing_is_said() -> None:
    answer = prism_lineage.explain("SELECT amount FROM ordrs").statements[0]
    assert answer.uncertain == []


def test_a_table_the_script_made_is_not_missing() -> None:
    sql = "CREATE TABLE t AS SELECT amount FROM orders; SELECT amount FROM t"
    for through in (False, True):
        answers = prism_lineage.explain(sql, schema=SHOP, through_script=through).statements
        assert answers[1].uncertain == [], through


def test_strict_refuses_a_table_not_in_the_schema() -> None:
    with pytest.raises(MissingTableError) as caught:
        prism_lineage.explain("SELECT o.amount FROM ordrs AS o", schema=SHOP, strict=True)
    assert caught.value.exit_code == 5
    assert str(caught.value) == ("table 'ordrs' is not in the schema (did you mean orders or order_items?): with "
                                 "--strict, every table read must be declared (at line 1, column 22)")
    # Declared tables are fine, and without a schema strict changes nothing.
    prism_lineage.explain("SELECT amount FROM orders", schema=SHOP, strict=True)
    prism_lineage.explain("SELECT amount FROM ordrs", strict=True)


def test_unknown_columns_name_the_table_and_the_closest_column() -> None:
    with pytest.raises(UnknownColumnError) as caught:
        prism_lineage.explain("SELECT amont FROM orders", schema=SHOP)
    assert str(caught.value).startswith("unknown column 'amont' of orders (did you mean amount?); available: "
                                        "order_id, amount, status")
    upper = {"ORDERS": {"ORDER_ID": "int", "AMOUNT": "int"}}
    with pytest.raises(UnknownColumnError, match=r"unknown column 'AMONT' of ORDERS \(did you mean AMOUNT\?\)"):
        prism_lineage.explain("SELECT o.amont FROM orders o", schema=upper, dialect="snowflake")


def _cli(*args: str, stdin: str) -> subprocess.CompletedProcess:
    from test_cli import run_script

    return run_script(*args, stdin=stdin)


def test_cli_strict_exits_5_and_says_why(tmp_path) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SHOP))
    done = _cli("explain", "-", "--schema", str(schema), "--strict", stdin="SELECT amount FROM ordrs")
    assert done.returncode == 5
    assert done.stdout == ""
    assert done.stderr.strip() == ("prism-lineage: error: table 'ordrs' is not in the schema (did you mean orders or "
                                   "order_items?): with --strict, every table read must be declared (at line 1, "
                                   "column 20)")
    relaxed = _cli("explain", "-", "--schema", str(schema), "-f", "json", stdin="SELECT amount FROM ordrs")
    assert relaxed.returncode == 0
    [statement] = json.loads(relaxed.stdout)["statements"]
    assert statement["uncertain"][0]["reason"].startswith("ordrs is not in the schema")
