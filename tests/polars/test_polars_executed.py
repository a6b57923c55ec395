"""Polars programs checked against Polars executing them (``polars_oracle``): the values of each
result column show which input columns it copies, and the explained answer must name them.

The named programs are written the way people write them (one per operation the frontend reads,
and the field trials found by running them: 38 ``over`` of a column, 39 ``unnest(separator=)``);
hypothesis chains random operations over three tables and checks every step's result the same way.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

pl = pytest.importorskip("polars")

from polars_oracle import frames, problems  # noqa: E402

import prism_lineage  # noqa: E402

# explain() sets up its deep-stack worker on first use; do it before hypothesis times anything.
prism_lineage.explain("SELECT 1")

PROGRAMS = {
    "with_columns_overwrite": lambda d: d["t"].with_columns(pl.col("x").alias("a")),
    "with_columns_swap": lambda d: d["t"].with_columns(pl.col("x").alias("a"), pl.col("a").alias("x")),
    "select_aliases": lambda d: d["t"].select(pl.col("a").alias("x"), pl.col("x").alias("a"), "g"),
    "rename_swap": lambda d: d["t"].rename({"a": "x", "x": "a"}),
    "drop_then_rename": lambda d: d["t"].drop("a").rename({"x": "a"}),
    "join_inner": lambda d: d["t"].join(d["u"], on="k"),
    "join_left": lambda d: d["t"].join(d["u"], on="k", how="left"),
    "join_right": lambda d: d["t"].join(d["u"], on="k", how="right"),
    "join_full": lambda d: d["t"].join(d["u"], on="k", how="full"),
    "join_full_coalesce": lambda d: d["t"].join(d["u"], on="k", how="full", coalesce=True),
    "join_inner_no_coalesce": lambda d: d["t"].join(d["u"], on="k", coalesce=False),
    "join_right_no_coalesce": lambda d: d["t"].join(d["u"], on="k", how="right", coalesce=False),
    "join_semi": lambda d: d["t"].join(d["v"], on="k", how="semi"),
    "join_anti": lambda d: d["t"].join(d["v"], on="k", how="anti"),
    "join_cross": lambda d: d["t"].select("a", "k").join(d["v"], how="cross"),
    "join_two_keys": lambda d: d["t"].join(d["u"], on=["k", "a"], how="left"),
    "join_other_names_right": lambda d: d["t"].join(d["u"].rename({"k": "kk"}), left_on="k", right_on="kk",
                                                    how="right"),
    "join_other_names_full": lambda d: d["t"].join(d["u"].rename({"k": "kk"}), left_on="k", right_on="kk",
                                                   how="full", coalesce=True),
    "join_on_expression": lambda d: d["t"].join(d["u"], left_on=pl.col("k").str.replace("k1", "k9"),
                                                right_on="k", how="full", coalesce=True),
    "join_suffix": lambda d: d["t"].join(d["u"], on="k", suffix="_u"),
    "join_asof": lambda d: d["t"].with_columns(pl.col("b").alias("o")).sort("o").join_asof(
        d["v"].with_columns((pl.col("b") - 2000).alias("o")).sort("o"), on="o"),
    "join_asof_other_names": lambda d: d["t"].sort("b").join_asof(
        d["v"].with_columns((pl.col("b") - 1999).alias("ob")).sort("ob"), left_on="b", right_on="ob"),
    "join_asof_by_no_coalesce": lambda d: d["t"].with_columns(pl.col("b").alias("o")).sort("o").join_asof(
        d["v"].with_columns((pl.col("b") - 1999).alias("o")).sort("o"), on="o", by="k", coalesce=False),
    "join_where": lambda d: d["t"].join_where(d["v"], pl.col("b") < pl.col("b_right") - 1999),
    "join_three": lambda d: d["t"].join(d["u"], on="k", how="left").join(d["v"], on="k", how="left"),
    "group_by": lambda d: d["t"].group_by("g").agg(pl.col("a").first(), pl.col("b").sum(), pl.col("x")),
    "group_by_expression_key": lambda d: d["t"].group_by(pl.col("a").alias("g")).agg(pl.col("x").max()),
    "over_aggregate": lambda d: d["t"].with_columns(pl.col("a").first().over("g").alias("x")),
    "over_column": lambda d: d["t"].select("g", pl.col("a").over("g")),
    "over_column_ordered": lambda d: d["t"].select("g", pl.col("a").over("g", order_by="b")),
    "over_column_explode": lambda d: d["t"].select(pl.col("a").over("g", mapping_strategy="explode")),
    "over_column_join": lambda d: d["t"].select("g", pl.col("x").over("g", mapping_strategy="join")),
    "over_shift": lambda d: d["t"].select("g", pl.col("a").shift(1).over("g", order_by="b")),
    "pivot": lambda d: d["t"].pivot(on="g", on_columns=["t.g:0", "t.g:1"], index="k", values="a",
                                    aggregate_function="first"),
    "explode": lambda d: d["t"].group_by("g").agg(pl.col("a"), pl.col("x")).explode(["a", "x"]),
    "unnest": lambda d: d["t"].select(pl.struct("a", "x").alias("s"), "b").unnest("s"),
    "unnest_separator": lambda d: d["t"].select(pl.struct("a", "x").alias("s"), "b").unnest("s", separator="_"),
    "struct_first_unnest": lambda d: d["t"].group_by("g").agg(pl.struct("a", "x").first().alias("s")).unnest("s"),
    "struct_list_explode_unnest": lambda d: d["t"].group_by("g").agg(pl.struct("a", "x").alias("s"))
    .explode("s").unnest("s"),
    "struct_over_unnest": lambda d: d["t"].select(pl.struct("a", "x").first().over("g").alias("s")).unnest("s"),
    "struct_list_get_field": lambda d: d["t"].group_by("g").agg(pl.struct("a", "x").alias("s")).select(
        pl.col("s").list.get(0).struct.field("a")),
    "struct_column_first_unnest": lambda d: d["t"].with_columns(pl.struct("a", "x").alias("s")).group_by("g").agg(
        pl.col("s").last()).unnest("s"),
    "select_filter": lambda d: d["t"].select(pl.col("a").filter(pl.col("b") > 1002)),
    "select_sort_by": lambda d: d["t"].select(pl.col("a").sort_by("b", descending=True), "x"),
    "select_top_k_by": lambda d: d["t"].select(pl.col("a").top_k_by("b", 2)),
    "unpivot": lambda d: d["t"].unpivot(index="k", on=["a", "x"]),
    "unpivot_every_other": lambda d: d["t"].select("k", "a", "g").unpivot(index="k"),
    "agg_row_minus_mean": lambda d: d["t"].group_by("g").agg(pl.col("b") - pl.col("b").mean(), pl.col("a")),
    "explode_expression": lambda d: d["t"].group_by("g").agg(pl.col("a")).select(pl.col("a").explode()),
    "list_eval": lambda d: d["t"].group_by("g").agg(pl.col("a")).with_columns(
        pl.col("a").list.eval(pl.element().str.to_uppercase()).alias("up")),
    "rolling": lambda d: d["t"].sort("b").rolling("b", period="2i", group_by="g").agg(
        pl.col("a").last(), pl.col("x"), pl.len()),
    "group_by_dynamic": lambda d: d["t"].sort("b").group_by_dynamic("b", every="2i", group_by="g").agg(
        pl.col("a").first(), pl.col("x").max()),
    "tail": lambda d: d["t"].sort("b").tail(2).select("a", "x"),
    "struct_field": lambda d: d["t"].select(pl.struct("a", "x").alias("s")).select(pl.col("s").struct.field("x")),
    "concat_vertical": lambda d: pl.concat([d["t"].select("a", "x"), d["u"].select("y", "a").rename({"y": "a", "a": "x"})]),
    "concat_diagonal": lambda d: pl.concat([d["t"].select("a", "x"), d["u"].select("y", "a")], how="diagonal"),
    "concat_align": lambda d: pl.concat([d["t"].select("k", "a"), d["u"].select("k", "y")], how="align"),
    "concat_horizontal": lambda d: pl.concat([d["t"].select("a", "x"), d["u"].select("y"), d["v"].select("z")],
                                             how="horizontal"),
    "unique_keep_first": lambda d: d["t"].unique(subset=["g"], keep="first"),
    "top_k": lambda d: d["t"].top_k(2, by="b"),
    "sort_head": lambda d: d["t"].sort("b", descending=True).head(2),
    "fill_null_other": lambda d: d["t"].join(d["u"], on="k", how="left").with_columns(
        pl.col("y").fill_null(pl.col("x"))),
    "when_then": lambda d: d["t"].select(pl.when(pl.col("b") > 1002).then(pl.col("a")).otherwise(pl.col("x"))),
    "coalesce": lambda d: d["t"].join(d["u"], on="k", how="left").select(pl.coalesce("y", "x")),
    "with_row_index": lambda d: d["t"].with_row_index("i"),
    "sql_context": lambda d: pl.SQLContext(t=d["t"], u=d["u"]).execute(
        "SELECT t.a, u.y FROM t JOIN u USING (k)"),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_answers_what_polars_computes(name: str) -> None:
    assert problems(PROGRAMS[name](frames())) == []


# --- random chains ------------------------------------------------------------------------------

STRINGS = {"t": ["k", "a", "g", "x"], "u": ["k", "a", "y"], "v": ["k", "z"]}


@st.composite
def chains(draw) -> pl.LazyFrame:
    d = frames()
    frame = d["t"]
    for step in range(draw(st.integers(1, 4))):
        try:
            schema = frame.collect_schema()
        except pl.exceptions.PolarsError:
            assume(False)  # a program Polars itself refuses (two columns of one name …)
        strings = [c for c, t in schema.items() if t == pl.String]
        assume(strings)
        op = draw(st.sampled_from(["overwrite", "select", "rename", "join", "group_by", "over", "unique",
                                   "sort_head", "concat", "struct", "fill_null", "explode", "unpivot", "rolling",
                                   "tail", "select_filter"]))
        one = draw(st.sampled_from(strings))
        other = draw(st.sampled_from(strings))
        if op == "overwrite":
            target = draw(st.sampled_from([one, f"n{step}"]))
            frame = frame.with_columns(pl.col(other).alias(target))
        elif op == "select":
            kept = draw(st.lists(st.sampled_from(list(schema)), min_size=1, unique=True))
            frame = frame.select(kept)
        elif op == "rename" and one != other:
            frame = frame.rename({one: other, other: one})
        elif op == "join" and "k" in schema:
            right = draw(st.sampled_from(["u", "v"]))
            how = draw(st.sampled_from(["inner", "left", "right", "full", "semi", "anti"]))
            coalesce = draw(st.sampled_from([None, True, False]))
            frame = frame.join(d[right], on="k", how=how, coalesce=coalesce, suffix=f"_{step}")
        elif op == "group_by":
            value = draw(st.sampled_from([c for c in strings if c != one] or [one]))
            how = draw(st.sampled_from(["first", "last", "max", "list"]))
            measure = pl.col(value) if how == "list" else getattr(pl.col(value), how)()
            frame = frame.group_by(one).agg(measure.alias(f"m{step}"))
        elif op == "over":
            key = draw(st.sampled_from(strings))
            how = draw(st.sampled_from(["column", "first", "last"]))
            expr = pl.col(other) if how == "column" else getattr(pl.col(other), how)()
            frame = frame.with_columns(expr.over(key).alias(draw(st.sampled_from([one, f"w{step}"]))))
        elif op == "unique":
            frame = frame.unique(subset=[one], keep=draw(st.sampled_from(["first", "last", "any", "none"])))
        elif op == "sort_head":
            frame = frame.sort(one).head(draw(st.integers(1, 4)))
        elif op == "concat" and one != other:
            # the second part's two string columns trade places: rows stacked by position
            swapped = frame.rename({one: other, other: one}).select(list(schema))
            frame = pl.concat([frame, swapped], how="vertical")
        elif op == "struct":
            parts = draw(st.lists(st.sampled_from(strings), min_size=1, unique=True))
            frame = frame.with_columns(pl.struct(parts).alias(f"s{step}"))
            if draw(st.booleans()):
                frame = frame.drop(parts).unnest(f"s{step}")
        elif op == "fill_null":
            frame = frame.with_columns(pl.col(one).fill_null(pl.col(other)))
        elif op == "unpivot" and one != other and "k" in schema and one != "k" and other != "k":
            frame = frame.unpivot(index="k", on=[one, other])
        elif op == "rolling" and schema.get("b") == pl.Int64:
            frame = frame.sort("b").rolling("b", period=f"{draw(st.integers(1, 3))}i").agg(
                getattr(pl.col(one), draw(st.sampled_from(["first", "last", "max"])))().alias(f"r{step}"))
        elif op == "tail":
            frame = frame.sort(one).tail(draw(st.integers(1, 4)))
        elif op == "select_filter" and "b" in schema and schema.get("b") == pl.Int64:
            frame = frame.select(pl.col(one).filter(pl.col("b") > 1001))
        elif op == "explode":
            frame = frame.group_by(one).agg(pl.col(other).alias(f"l{step}")).explode(f"l{step}")
    try:
        frame.collect()
    except pl.exceptions.PolarsError:
        assume(False)  # a program Polars itself refuses (two columns of one name …)
    return frame


@settings(max_examples=int(__import__("os").environ.get("PRISM_EXAMPLES", "40")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(chains())
def test_random_chains_answer_what_polars_computes(frame: pl.LazyFrame) -> None:
    assert problems(frame, supersets=False) == [], frame.explain(optimized=False)
