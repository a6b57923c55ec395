"""Snowflake's IDENTIFIER(…) (session-5 leftover 2e; frontends/sql/identifiers.py): a string
literal is the name it holds; a name known only at run time is never read as a constant."""

from __future__ import annotations

import pytest

import prism_lineage
from prism_lineage import InvalidStatementError

SCHEMA = {"orders": {"order_id": "int", "amount": "int"}}


def _sources(sql: str) -> list[list[tuple[str, str]]]:
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect="snowflake").statements
    return [[(s.column, s.confidence) for s in f.sources] for f in answer.fields]


def test_a_literal_name_reads_as_the_name_itself() -> None:
    for spelled in ("orders", "ORDERS", '"orders"'):
        written = _sources(f"SELECT amount FROM {spelled}")
        assert _sources(f"SELECT amount FROM IDENTIFIER('{spelled}')") == written == [[("orders.amount", "exact")]]
    assert _sources("SELECT IDENTIFIER('amount') AS a FROM orders") == [[("orders.amount", "exact")]]


def test_a_run_time_name_is_unknown_or_refused() -> None:
    [[(column, confidence)]] = _sources("SELECT amount FROM IDENTIFIER($t)")
    assert confidence == "unknown"
    with pytest.raises(InvalidStatementError) as error:
        prism_lineage.explain("SELECT IDENTIFIER($c) FROM orders", SCHEMA, dialect="snowflake")
    assert "known only when the statement runs" in error.value.message and error.value.line == 1
