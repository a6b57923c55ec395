"""Snowflake's positional column references ``$n`` / ``t.$n`` (prism_lineage/frontends/sql/positional.py).

They were read as a constant (``SELECT $1 FROM orders``: no source) or as a column named ``1``
(``t.$1``): wrong answers.  The goldens ``scan/positional_columns_snowflake`` and
``uncertain/positional_column_past_star_snowflake`` hold the answers; these tests hold the
refusals and the equivalence with naming the column."""

from __future__ import annotations

import pytest

import prism_lineage
from prism_lineage import InvalidStatementError

SCHEMA = {"orders": {"order_id": "int", "customer_id": "int", "amount": "number"},
          "customers": {"customer_id": "int", "name": "varchar"}}


def answer(sql: str) -> list:
    [statement] = prism_lineage.explain(sql, SCHEMA, dialect="snowflake").statements
    return [sorted((s.column, s.relationship, s.transformation, s.confidence) for s in f.sources)
            for f in statement.fields]


@pytest.mark.parametrize("positional, named", [
    ("SELECT $3 FROM orders WHERE $2 > 5", "SELECT amount FROM orders WHERE customer_id > 5"),
    ("SELECT o.$1, c.$2 FROM orders o JOIN customers c ON o.$2 = c.$1",
     "SELECT o.order_id, c.name FROM orders o JOIN customers c ON o.customer_id = c.customer_id"),
    ("SELECT $2, SUM($3) FROM orders GROUP BY $2", "SELECT customer_id, SUM(amount) FROM orders GROUP BY customer_id"),
    ("SELECT $4 FROM orders, customers", "SELECT customers.customer_id FROM orders, customers"),
])
def test_a_position_is_the_column_there(positional, named) -> None:
    assert answer(positional) == answer(named)


@pytest.mark.parametrize("sql, message", [
    ("SELECT $6 FROM orders, customers", "$6: the FROM clause has 5 columns"),
    ("SELECT o.$4 FROM orders o", "o.$4: orders has 3 columns"),
    ("SELECT x.$1 FROM orders o", "x.$1: x is no table in scope"),
    ("SELECT $0 FROM orders", "column positions start at 1"),
])
def test_a_position_that_is_not_there_is_refused(sql, message) -> None:
    with pytest.raises(InvalidStatementError) as error:
        prism_lineage.explain(sql, SCHEMA, dialect="snowflake")
    assert message in error.value.message
    assert error.value.line == 1
