"""Declared policies and checks: errors in them are schema errors naming the entry."""

from __future__ import annotations

import pytest

import prism_lineage
from prism_lineage.errors import SchemaError

TABLES = {"orders": {"order_id": "int", "region": "varchar", "amount": "decimal"}}


def explain(policies=None, checks=None, sql="SELECT order_id FROM orders"):
    schema = {"tables": TABLES}
    if policies is not None:
        schema["policies"] = policies
    if checks is not None:
        schema["checks"] = checks
    return prism_lineage.explain(sql, schema=schema, dialect="duckdb")


def kinds(answer) -> set[tuple[str, str]]:
    return {(s.column, s.relationship) for s in answer.statements[0].fields[0].sources}


def test_policy_on_an_undeclared_table() -> None:
    with pytest.raises(SchemaError, match=r"policies\[0\]: table 'ordrs' is not declared in the schema"):
        explain([{"table": "ordrs", "row_access": "region = 'EU'"}])


def test_mask_on_an_unknown_column() -> None:
    with pytest.raises(SchemaError, match="names column 'mail', which orders does not have"):
        explain([{"name": "m", "table": "orders", "column": "mail"}])


def test_predicate_that_does_not_parse() -> None:
    with pytest.raises(SchemaError, match="cannot parse"):
        explain(checks=[{"table": "orders", "predicate": "amount >= AND"}])


def test_predicate_reading_an_unknown_column() -> None:
    with pytest.raises(SchemaError, match="unknown column 'regio'"):
        explain([{"name": "eu", "table": "orders", "row_access": "regio = 'EU'"}])


def test_entry_needs_a_predicate_or_a_column() -> None:
    with pytest.raises(SchemaError, match="needs row_access"):
        explain([{"table": "orders"}])


def test_policy_and_check_kinds() -> None:
    answer = explain([{"table": "orders", "row_access": "region = 'EU'"}], [{"table": "orders", "predicate": "amount > 0"}])
    assert kinds(answer) == {("orders.order_id", "value"), ("orders.region", "policy"), ("orders.amount", "quality")}


def test_the_entry_dialect_parses_its_predicate() -> None:
    answer = explain([{"table": "orders", "row_access": 'region = "EU"', "dialect": "bigquery"}])
    assert ("orders.region", "policy") in kinds(answer)


def test_without_policies_nothing_changes() -> None:
    assert kinds(explain()) == {("orders.order_id", "value")}
