"""Dataframe-style plans: a fluent Python API that builds the Prism IR directly.

    from prism_lineage.frame import table, col, lit
    import prism_lineage.frame.functions as F

    orders = table("orders", schema={"order_id": "int", "customer_id": "int",
                                     "status": "varchar", "amount": "decimal"})
    summary = (orders.filter(col("status") == "paid")
                     .group_by([col("customer_id")])
                     .agg([F.sum(col("amount")).alias("total_amount")]))
    prism_lineage.explain(summary)   # the same answer as for the SQL twin

Every target's authored origin is the user's own call site (file, line, column); bad calls
raise typed ``PrismError``s at that call.  See docs/frame.md and specs/frame.md.
"""

from .dataframe import DataFrame, GroupedFrame, table
from .expressions import Column, col, lit
from .functions import UserFunction, udf

__all__ = ["Column", "DataFrame", "GroupedFrame", "UserFunction", "col", "lit", "table", "udf"]
