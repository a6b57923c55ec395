"""Bad calls fail where the user wrote them: a typed ``PrismError`` whose origin is the call
site in this file, with a message naming what is wrong (an unknown column and the columns
that exist, the candidates of an ambiguous one …)."""

from __future__ import annotations

import sys

import pytest

import prism_lineage.frame.functions as F
from prism_lineage.errors import (
    AmbiguousColumnError,
    InvalidStatementError,
    PrismError,
    SchemaError,
    UnknownColumnError,
    UnknownTableError,
    UsageError,
)
from prism_lineage.frame import DataFrame, col, lit, table

ORDERS = {"order_id": "int", "customer_id": "int", "status": "varchar", "amount": "decimal"}
orders = table("orders", schema=ORDERS)
customers = table("customers", schema={"customer_id": "int", "name": "varchar"})


def here() -> int:
    """The line of the caller (the line a test writes its bad call on)."""
    return sys._getframe(1).f_lineno


def assert_at_call_site(error: PrismError, line: int) -> None:
    assert error.origin is not None
    assert error.origin.file == __file__
    assert error.origin.line == line
    assert f"{__file__}:{line}" in str(error)


def test_unknown_column_names_it_and_lists_the_available_ones() -> None:
    with pytest.raises(UnknownColumnError) as info:
        line = here(); orders.filter(col("stauts") == "paid")  # noqa: E702
    error = info.value
    assert_at_call_site(error, line)
    assert error.column_name == "stauts"
    assert error.available == ["order_id", "customer_id", "status", "amount"]
    assert str(error).startswith("unknown column 'stauts' of orders (did you mean status?); available: order_id, customer_id, "
                                 "status, amount")


def test_unknown_column_in_a_later_step_lists_that_frames_columns() -> None:
    summary = orders.group_by("customer_id").agg(F.sum("amount").alias("total"))
    with pytest.raises(UnknownColumnError) as info:
        line = here(); summary.select("amount")  # noqa: E702
    assert_at_call_site(info.value, line)
    assert info.value.available == ["customer_id", "total"]


def test_unknown_column_written_earlier_points_at_the_column() -> None:
    """The origin is where the name was written; the error is raised by the call using it."""
    line = here(); bad = col("nope")  # noqa: E702
    with pytest.raises(UnknownColumnError) as info:
        orders.select(bad)
    assert_at_call_site(info.value, line)


def test_ambiguous_column_after_a_join_names_the_candidates() -> None:
    joined = orders.join(customers, on=orders["customer_id"] == customers["customer_id"])
    with pytest.raises(AmbiguousColumnError) as info:
        line = here(); joined.select("customer_id")  # noqa: E702
    assert_at_call_site(info.value, line)
    assert info.value.candidates == ["orders.customer_id", "customers.customer_id"]
    assert joined.select(col("customers.customer_id")).columns == ["customer_id"]


def test_self_join_without_aliases_asks_for_them() -> None:
    with pytest.raises(AmbiguousColumnError) as info:
        line = here(); orders.join(orders, on=orders["order_id"] == orders["order_id"])  # noqa: E702
    assert_at_call_site(info.value, line)
    assert ".alias()" in str(info.value)


def test_column_of_another_frame() -> None:
    with pytest.raises(UnknownColumnError) as info:
        line = here(); customers.filter(orders["status"] == "paid")  # noqa: E702
    assert_at_call_site(info.value, line)
    assert "not an input of this frame" in str(info.value)


def test_qualifier_without_that_column() -> None:
    with pytest.raises(UnknownColumnError) as info:
        orders.select(col("orders.name"))
    assert info.value.table == "orders"


def test_aggregate_outside_agg() -> None:
    with pytest.raises(InvalidStatementError) as info:
        line = here(); orders.select(F.sum("amount"))  # noqa: E702
    assert_at_call_site(info.value, line)
    assert "only allowed in agg()" in str(info.value)


def test_column_that_is_not_a_group_key() -> None:
    with pytest.raises(InvalidStatementError) as info:
        line = here(); orders.group_by("customer_id").agg(col("status"))  # noqa: E702
    assert_at_call_site(info.value, line)
    assert "'status' is not a group key" in str(info.value)


def test_window_function_without_over() -> None:
    with pytest.raises(InvalidStatementError, match=r"row_number\(\) is a window function"):
        orders.select(F.row_number())


def test_window_in_a_grouping_key() -> None:
    with pytest.raises(InvalidStatementError, match="window functions are allowed in"):
        orders.group_by(F.row_number().over(order_by="amount"))


def test_nested_aggregate() -> None:
    with pytest.raises(InvalidStatementError, match="cannot be nested"):
        orders.agg(F.sum(F.max("amount")))


def test_set_operation_arity() -> None:
    with pytest.raises(InvalidStatementError) as info:
        line = here(); orders.union(customers)  # noqa: E702
    assert_at_call_site(info.value, line)
    assert "4 on the left, 2 on the right" in str(info.value)


def test_a_column_has_no_truth_value() -> None:
    with pytest.raises(UsageError) as info:
        line = here(); orders.filter(col("status") == "paid" and col("amount") > 0)  # noqa: E702
    assert_at_call_site(info.value, line)


@pytest.mark.parametrize("call", [
    lambda: orders.limit(-1),
    lambda: orders.limit(True),
    lambda: orders.limit(None),
    lambda: orders.offset("3"),
    lambda: orders.filter("status = 'paid'"),
    lambda: orders.join(customers),
    lambda: orders.join(customers, on="customer_id", how="sideways"),
    lambda: orders.join("customers", on="customer_id"),
    lambda: orders.join(customers, on=["customer_id", col("amount") > 1]),
    lambda: orders.cross_join(customers.select("name")).join(customers, how="cross", on="name"),
    lambda: orders.select(lit(object())),
    lambda: orders.select(col("amount").cast("")),
    lambda: orders.select(col("amount").over()),
    lambda: orders.select(col(3)),
    lambda: orders.with_columns(col("amount") + 1),
    lambda: orders.rename(["amount"]),
    lambda: orders.select(F.rows_between(-1, "x")),
    lambda: F.udf("f", transformation="teleport"),
    lambda: F.udf("f", kind="generator"),
    lambda: table("orders"),
    lambda: table("", schema={}),
    lambda: list(col("amount")),
    lambda: orders.select(col("amount").json("")),
    lambda: orders.select(col("amount")[1.5]),
], ids=lambda call: f"line {call.__code__.co_firstlineno}")
def test_bad_arguments_are_usage_errors(call) -> None:
    with pytest.raises(UsageError) as info:
        call()
    assert info.value.origin is not None and info.value.origin.file == __file__


def test_bad_schema_is_a_schema_error_at_the_table_call() -> None:
    with pytest.raises(SchemaError) as info:
        line = here(); table("orders", schema={"id": ["not", "a", "type"]})  # noqa: E702
    assert info.value.origin is not None and info.value.origin.line == line


def test_unknown_table_in_a_catalog() -> None:
    with pytest.raises(UnknownTableError) as info:
        line = here(); table("ordres", catalog={"orders": ORDERS, "customers": {"id": "int"}})  # noqa: E702
    assert info.value.origin is not None and info.value.origin.line == line
    assert info.value.available == ["orders", "customers"]


def test_conflicting_user_function_facts() -> None:
    masked = F.udf("f", transformation="mask")
    plain = F.udf("f")
    left = orders.select(masked("status").alias("a"))
    right = orders.select(plain("status").alias("a"))
    with pytest.raises(InvalidStatementError, match="declared twice"):
        left.union(right)


def test_every_frame_is_a_dataframe() -> None:
    assert isinstance(orders.filter(col("amount") > 0), DataFrame)
