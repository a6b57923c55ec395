"""The RFC's worked example, end to end, from Python."""

import prism_lineage

ORDERS = {"orders": {"order_id": "int", "customer_id": "int", "status": "varchar", "amount": "decimal"}}


def test_rfc_worked_example():
    answer = prism_lineage.explain(
        "SELECT customer_id, SUM(amount) AS total_amount FROM orders WHERE status='paid' GROUP BY customer_id",
        schema=ORDERS,
    ).model_dump()
    total = answer["statements"][0]["fields"][1]
    assert total["name"] == "total_amount"
    assert total["sources"] == [
        {"column": "orders.amount", "relationship": "value", "transformation": "aggregate", "confidence": "exact"},
        {"column": "orders.customer_id", "relationship": "grouping", "transformation": "aggregate",
         "confidence": "exact"},
        {"column": "orders.status", "relationship": "control", "transformation": "filter", "confidence": "exact"},
    ]
