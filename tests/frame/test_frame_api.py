"""The builder's surface: what each method makes (columns, IR operators), beyond the answers
the golden files and SQL twins check."""

from __future__ import annotations

import pytest

import prism_lineage
import prism_lineage.frame.functions as F
from prism_lineage.errors import InvalidStatementError, UnknownColumnError
from prism_lineage.frame import DataFrame, col, lit, table
from prism_lineage.functions import FunctionInfo
from prism_lineage.ir import (
    Aggregate,
    Call,
    FrameUnit,
    Generator,
    Join,
    JoinKind,
    Literal,
    NestedAccess,
    Project,
    Scan,
    Window,
    walk_relations,
)
from prism_lineage.lineage.kinds import Transformation

ORDERS = {"order_id": "int", "customer_id": "int", "status": "varchar", "amount": "decimal(10, 2)"}
orders = table("orders", schema=ORDERS)
customers = table("customers", schema={"customer_id": "int", "name": "varchar"})


def root(frame: DataFrame):
    return frame.to_statements()[0].root


def relations(frame: DataFrame, kind: type) -> list:
    return [r for r in walk_relations(root(frame)) if isinstance(r, kind)]


def test_columns_types_and_repr() -> None:
    assert orders.columns == list(ORDERS)
    assert orders.dtypes == [("order_id", "INT"), ("customer_id", "INT"), ("status", "VARCHAR"),
                             ("amount", "DECIMAL(10, 2)")]
    totals = orders.group_by("customer_id").agg(F.sum("amount").alias("total"), F.count().alias("n"),
                                                F.avg("amount").alias("mean"))
    assert totals.dtypes == [("customer_id", "INT"), ("total", "DECIMAL(10, 2)"), ("n", "BIGINT"),
                             ("mean", "DOUBLE")]
    assert repr(orders.select("status")) == "DataFrame[status: VARCHAR]"
    assert repr(col("amount") * 2) == "Column(amount * 2)"


def test_unaliased_expressions_are_named_by_their_text() -> None:
    frame = orders.group_by("customer_id").agg(F.sum("amount"), F.count(), F.count_distinct("status"))
    assert frame.columns == ["customer_id", "sum(amount)", "count(*)", "count(DISTINCT status)"]
    assert orders.select(col("amount") + 1, col("orders.status")).columns == ["amount + 1", "status"]


def test_scan_reads_only_the_columns_used() -> None:
    frame = orders.filter(col("status") == "paid").select("order_id")
    (scan,) = relations(frame, Scan)
    assert [f.name for f in scan.fields] == ["order_id", "status"]
    (count_scan,) = relations(orders.agg(F.count().alias("n")), Scan)
    assert count_scan.fields == ()


def test_with_column_and_aliases_of_methods() -> None:
    frame = orders.with_column("double", col("amount") * 2).where(col("double") > 10).order_by("order_id").unique()
    assert frame.columns == list(ORDERS) + ["double"]
    assert orders.subtract(orders).columns == list(ORDERS)
    assert orders.unnest  # explode's other name
    with pytest.raises(UnknownColumnError):
        orders.drop("nope")


def test_bound_column_reaches_through_row_operators() -> None:
    joined = orders.filter(col("amount") > 0).join(customers, on=orders["customer_id"] == customers["customer_id"])
    assert joined.select(customers["name"], orders["status"]).columns == ["name", "status"]
    with pytest.raises(UnknownColumnError, match="not an input of this frame"):
        orders.select("status").select(orders["status"])


def test_join_kinds_and_layouts() -> None:
    for how, kind in (("inner", JoinKind.INNER), ("left_outer", JoinKind.LEFT), ("outer", JoinKind.FULL),
                      ("left_semi", JoinKind.SEMI), ("anti", JoinKind.ANTI)):
        frame = orders.join(customers, on="customer_id", how=how)
        (join,) = relations(frame, Join)
        assert join.kind is kind
        assert isinstance(join.condition, Call) and join.condition.function == "eq"
    assert orders.join(customers, on="customer_id", how="semi").columns == list(ORDERS)
    assert orders.join(customers, on="customer_id").columns == ["customer_id", "order_id", "status", "amount", "name"]
    both = orders.join(customers, left_on=["customer_id", "order_id"], right_on=["customer_id", "customer_id"])
    (join,) = relations(both, Join)
    assert join.condition.function == "and"
    assert len(both.columns) == 6
    (cross,) = relations(orders.join(customers, how="cross"), Join)
    assert cross.kind is JoinKind.CROSS and cross.condition is None


def test_grouping_sets_by_name_or_column() -> None:
    sets = [[col("status")], ["customer_id", "status"], []]
    frame = orders.group_by("customer_id", col("status"), grouping_sets=sets)
    (aggregate,) = relations(frame.agg(F.count().alias("n")), Aggregate)
    assert aggregate.grouping_sets == ((1,), (0, 1), ())
    (cube,) = relations(orders.cube("customer_id", "status").agg(F.count().alias("n")), Aggregate)
    assert cube.grouping_sets == ((0, 1), (0,), (1,), ())
    with pytest.raises(InvalidStatementError, match="not one of the group_by keys"):
        orders.group_by("customer_id", grouping_sets=[["status"]])


def test_window_frames_and_functions() -> None:
    frame = orders.select(
        F.sum("amount").over(order_by="order_id", frame=F.range_between(F.preceding(3), F.following(1))).alias("a"),
        F.ntile(4).over(order_by="amount").alias("b"),
        F.lead("amount", 2, 0).over(partition_by=["customer_id"], order_by=[col("order_id").asc(nulls_first=True)])
        .alias("c"),
        F.first_value("amount").over(order_by="order_id", frame=F.groups_between(None, 0)).alias("d"),
    )
    (window,) = relations(frame, Window)
    first, ntile, lead, first_value = window.calls
    assert first.frame.unit is FrameUnit.RANGE
    assert (first.frame.start.kind, first.frame.start.offset.value) == ("preceding", "3")
    assert (first.frame.end.kind, first.frame.end.offset.value) == ("following", "1")
    assert ntile.function.function == "ntile" and isinstance(ntile.function.args[0], Literal)
    assert [a.value for a in lead.function.args[1:]] == ["2", "0"]
    assert lead.order_by[0].nulls_first is True
    assert first_value.frame.unit is FrameUnit.GROUPS and first_value.frame.start.kind == "unbounded_preceding"
    assert isinstance(root(frame), Project)


def test_scalar_functions_lower_to_their_sql_names() -> None:
    frame = orders.select(
        F.if_(col("amount") > 0, col("amount"), 0).alias("a"), F.nullif("status", "x").alias("b"),
        F.greatest("amount", 1).alias("c"), F.round("amount", 1).alias("d"), F.substring("status", 1, 2).alias("e"),
        col("status").like("p%").alias("f"), col("amount").between(1, 2).alias("g"), (~col("status").is_null())
        .alias("h"), (-col("amount") % 3).alias("i"), col("status").isin(["a", "b"]).alias("j"),
    )
    names = [e.function for e in root(frame).exprs]
    assert names == ["if", "nullif", "greatest", "round", "substring", "like", "between", "not", "mod", "in"]


def test_user_functions() -> None:
    score = F.udf(FunctionInfo("Score", Transformation.OPAQUE))
    assert score.info.name == "score"
    weighted = F.udf("weighted_sum", kind="aggregate")
    frame = orders.group_by("customer_id").agg(weighted("amount", "order_id").alias("w")).select(
        "customer_id", score("w").alias("s"))
    assert {i.name for i in frame.function_infos()} == {"score", "weighted_sum"}
    (project,) = [r for r in walk_relations(root(frame)) if isinstance(r, Project)][-1:]
    assert project.exprs[1].known is False
    windowed = orders.select(weighted("amount", "order_id").over(partition_by="customer_id").alias("w"))
    (window,) = relations(windowed, Window)
    assert window.calls[0].function.function == "weighted_sum"
    answer = prism_lineage.explain(frame).statements[0].fields[1]
    assert {(s.column, s.transformation) for s in answer.sources if s.relationship == "value"} == {
        ("orders.amount", "opaque"), ("orders.order_id", "opaque")}


def test_explode_shapes() -> None:
    baskets = table("baskets", schema={"id": "int", "tags": "varchar[]", "n": "int", "m": "map(varchar, int)"})
    (generator,) = relations(baskets.explode("tags"), Generator)
    assert generator.exact and [c.name for c in generator.columns] == ["tags"]
    assert baskets.explode("tags").columns == ["id", "tags", "n", "m"]
    assert baskets.explode("m").columns == ["id", "tags", "n", "m", "key", "value"]
    assert baskets.explode("tags", position="i").columns == ["id", "tags", "n", "m", "i"]
    with pytest.raises(InvalidStatementError, match="neither an array nor a map"):
        baskets.explode("n")
    with pytest.raises(prism_lineage.UsageError, match="names= is for maps"):
        baskets.explode("tags", names=("a", "b"))


def test_nested_access_lowering() -> None:
    events = table("events", schema={"payload": "json", "s": "struct<a: int, b: array<struct<c: varchar>>>"})
    frame = events.select(col("s")["b"][0]["c"].alias("c"), col("payload").json("$.a").json("$.b").alias("ab"))
    struct_access, json_access = root(frame).exprs
    assert isinstance(struct_access, NestedAccess) and struct_access.steps == (".b", "[0]", ".c")
    assert struct_access.exact and struct_access.type == "VARCHAR"
    assert json_access.steps == (".a", ".b") and not json_access.exact
    with pytest.raises(UnknownColumnError, match="unknown field 'z' of the struct s"):
        events.select(col("s")["z"])
    with pytest.raises(InvalidStatementError, match="is a struct: read a field by name"):
        events.select(col("s")[0])


def test_literals() -> None:
    import datetime
    import decimal

    frame = orders.select(lit(None).alias("a"), lit(True).alias("b"), lit(1.5).alias("c"),
                          lit(decimal.Decimal("2.50")).alias("d"), lit(datetime.date(2024, 1, 2)).alias("e"),
                          lit(datetime.datetime(2024, 1, 2, 3, 4)).alias("f"))
    assert [(e.value, e.type) for e in root(frame).exprs] == [
        (None, None), ("TRUE", "BOOLEAN"), ("1.5", "DECIMAL"), ("2.50", "DECIMAL"), ("2024-01-02", "DATE"),
        ("2024-01-02 03:04:00", "TIMESTAMP")]
