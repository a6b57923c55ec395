"""TPC-H and TPC-DS (tests/fixtures/workloads/, copied from the shared workloads; see its
PROVENANCE.txt): every query is answered with no error, passes the invariants, and no source
is unknown or conservative without a reason naming its field.  A handful of fields are
checked exactly, against answers worked out by hand from the SQL."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

import prism_lineage
from invariants import check_invariants

WORKLOADS = Path(__file__).resolve().parent / "fixtures" / "workloads"


@cache
def schema(workload: str) -> dict:
    return json.loads((WORKLOADS / workload / "schema.json").read_text(encoding="utf-8"))


def queries(workload: str) -> list[Path]:
    return sorted((WORKLOADS / workload).glob("q*.sql"))


def test_workloads_are_complete() -> None:
    assert len(queries("tpch")) == 22
    assert len(queries("tpcds")) == 99


@pytest.mark.parametrize("path", queries("tpch") + queries("tpcds"), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_query_is_answered(path: Path) -> None:
    answer = check_invariants(path.read_text(encoding="utf-8"), schema(path.parent.name), None)
    for statement in answer["statements"]:
        assert statement["fields"], "a query with no output fields"
        explained = {item["field"] for item in statement["uncertain"]}
        for field in statement["fields"]:
            for source in field["sources"]:
                if source["confidence"] != "exact":
                    assert field["name"] in explained, f"{field['name']}: {source} without a reason"


# --- fields checked by hand -------------------------------------------------------------------


def field_sources(workload: str, query: str, field: str) -> dict[str, list[str]]:
    """The answer of one field as {relationship: ["column transformation confidence", …]}."""
    sql = (WORKLOADS / workload / f"{query}.sql").read_text(encoding="utf-8")
    answer = prism_lineage.explain(sql, schema=schema(workload)).model_dump()
    [found] = [f for f in answer["statements"][0]["fields"] if f["name"] == field]
    out: dict[str, list[str]] = {}
    for source in found["sources"]:
        out.setdefault(source["relationship"], []).append(
            f"{source['column']} {source['transformation']} {source['confidence']}")
    return out


def exact(kind: str, *columns: str) -> list[str]:
    return [f"{c} {kind} exact" for c in columns]


def test_tpch_q1_sum_charge() -> None:
    # sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) … where l_shipdate <= …
    # group by l_returnflag, l_linestatus order by l_returnflag, l_linestatus
    assert field_sources("tpch", "q01", "sum_charge") == {
        "value": exact("aggregate", "lineitem.l_discount", "lineitem.l_extendedprice", "lineitem.l_tax"),
        "grouping": exact("aggregate", "lineitem.l_linestatus", "lineitem.l_returnflag"),
        "control": exact("filter", "lineitem.l_shipdate"),
        "sort": exact("identity", "lineitem.l_linestatus", "lineitem.l_returnflag"),
    }


def test_tpch_q1_count_star() -> None:
    # count(*) reads no column: only the rows' dependencies.
    assert field_sources("tpch", "q01", "count_order") == {
        "grouping": exact("aggregate", "lineitem.l_linestatus", "lineitem.l_returnflag"),
        "control": exact("filter", "lineitem.l_shipdate"),
        "sort": exact("identity", "lineitem.l_linestatus", "lineitem.l_returnflag"),
    }


def test_tpch_q3_revenue() -> None:
    # Comma joins: c_custkey = o_custkey and l_orderkey = o_orderkey are join predicates; the
    # other conjuncts are filters.  ORDER BY revenue desc, o_orderdate (the CAST's alias) LIMIT
    # 10: the order keys pick the rows (control) and order them (sort, by the keys' values: the
    # aggregate, the cast).
    assert field_sources("tpch", "q03", "revenue") == {
        "value": exact("aggregate", "lineitem.l_discount", "lineitem.l_extendedprice"),
        "grouping": exact("aggregate", "lineitem.l_orderkey", "orders.o_orderdate", "orders.o_shippriority"),
        "control": exact("filter", "customer.c_mktsegment", "lineitem.l_discount", "lineitem.l_extendedprice",
                         "lineitem.l_shipdate", "orders.o_orderdate"),
        "join": exact("join", "customer.c_custkey", "lineitem.l_orderkey", "orders.o_custkey", "orders.o_orderkey"),
        "sort": exact("aggregate", "lineitem.l_discount", "lineitem.l_extendedprice")
        + exact("expression", "orders.o_orderdate"),
    }


def test_tpch_q3_cast_key() -> None:
    # CAST(o_orderdate AS STRING) AS o_orderdate: the group key, cast: expression.
    assert field_sources("tpch", "q03", "o_orderdate")["value"] == exact("expression", "orders.o_orderdate")


def test_tpch_q6_revenue() -> None:
    # sum(l_extendedprice * l_discount) where l_shipdate …, l_discount between …, l_quantity < 24
    assert field_sources("tpch", "q06", "revenue") == {
        "value": exact("aggregate", "lineitem.l_discount", "lineitem.l_extendedprice"),
        "control": exact("filter", "lineitem.l_discount", "lineitem.l_quantity", "lineitem.l_shipdate"),
    }


def test_tpcds_q3_brand_id() -> None:
    # item.i_brand_id brand_id, grouped by d_year, i_brand, i_brand_id; ordered by d_year,
    # sum_agg (= SUM(ss_ext_discount_amt)) and brand_id, LIMIT 100: the keys pick the rows too.
    assert field_sources("tpcds", "q03", "brand_id") == {
        "value": exact("identity", "item.i_brand_id"),
        "grouping": exact("aggregate", "date_dim.d_year", "item.i_brand", "item.i_brand_id"),
        "control": exact("filter", "date_dim.d_moy", "date_dim.d_year", "item.i_brand_id", "item.i_manufact_id",
                         "store_sales.ss_ext_discount_amt"),
        "join": exact("join", "date_dim.d_date_sk", "item.i_item_sk", "store_sales.ss_item_sk",
                      "store_sales.ss_sold_date_sk"),
        "sort": exact("identity", "date_dim.d_year", "item.i_brand_id")
        + exact("aggregate", "store_sales.ss_ext_discount_amt"),
    }


def test_tpcds_q12_revenueratio() -> None:
    # Sum(ws_ext_sales_price)*100/Sum(Sum(ws_ext_sales_price)) OVER (partition BY i_class):
    # the strongest hop of the value paths is the aggregate; the window adds window lineage from
    # its partition (i_class) and input; ORDER BY …, revenueratio LIMIT 100 adds the keys' own
    # sources: they pick the rows (control) and order them (sort; the ratio's by its aggregate).
    assert field_sources("tpcds", "q12", "revenueratio") == {
        "value": exact("aggregate", "web_sales.ws_ext_sales_price"),
        "grouping": exact("aggregate", "item.i_category", "item.i_class", "item.i_current_price",
                          "item.i_item_desc", "item.i_item_id"),
        "control": exact("filter", "date_dim.d_date", "item.i_category", "item.i_class", "item.i_item_desc",
                         "item.i_item_id", "web_sales.ws_ext_sales_price"),
        "join": exact("join", "date_dim.d_date_sk", "item.i_item_sk", "web_sales.ws_item_sk",
                      "web_sales.ws_sold_date_sk"),
        "window": exact("window", "item.i_class", "web_sales.ws_ext_sales_price"),
        "sort": exact("identity", "item.i_category", "item.i_class", "item.i_item_desc", "item.i_item_id")
        + exact("aggregate", "web_sales.ws_ext_sales_price"),
    }
