"""The RFC's worked example, as a Substrait plan DataFusion produces, explained from Python."""

from __future__ import annotations

import pytest

import prism_lineage
from prism_lineage.frontends.substrait import SubstraitPlan

datafusion = pytest.importorskip("datafusion")

SQL = "SELECT customer_id, SUM(amount) AS total_amount FROM orders WHERE status = 'paid' GROUP BY customer_id"


def test_rfc_example_from_a_datafusion_plan() -> None:
    import pyarrow as pa
    from datafusion.substrait import Producer

    ctx = datafusion.SessionContext()
    columns = {"order_id": pa.int32(), "customer_id": pa.int32(), "status": pa.string(), "amount": pa.float64()}
    ctx.register_record_batches("orders", [[pa.RecordBatch.from_arrays(
        [pa.array([], type=t) for t in columns.values()], names=list(columns))]])
    data = Producer.to_substrait_plan(ctx.sql(SQL).logical_plan(), ctx).encode()
    answer = prism_lineage.explain(SubstraitPlan.from_bytes(data)).model_dump()
    total = answer["statements"][0]["fields"][1]
    assert total["name"] == "total_amount"
    assert total["sources"] == [
        {"column": "orders.amount", "relationship": "value", "transformation": "aggregate", "confidence": "exact"},
        {"column": "orders.customer_id", "relationship": "grouping", "transformation": "aggregate",
         "confidence": "exact"},
        {"column": "orders.status", "relationship": "control", "transformation": "filter", "confidence": "exact"},
    ]
