"""TPC-H and TPC-DS through DataFusion: every query of tests/fixtures/workloads as a Substrait
plan, explained and compared with the same SQL through the SQL frontend, field by field.

Most queries DataFusion writes as planned, and those explain exactly like their SQL. The others
are listed below with what makes them differ, and the test checks that the difference is that
and nothing else (docs/substrait.md):

* **decorrelated**: correlated subqueries, which DataFusion writes only once its optimiser has
  turned them into joins; value lineage is the SQL's, and only the kinds of the subqueries'
  dependencies change among control, join and grouping;
* **distinct aggregates**: INTERSECT and EXCEPT, which DataFusion writes as distinct
  aggregates over semi/anti joins; value lineage is the SQL's, indirect kinds differ as above;
* **not written**: queries DataFusion itself cannot plan or write.

``GROUPING(…)``, which DataFusion writes as an aggregate of its own (no standard Substrait
extension declares one), is read as the SQL frontend reads it — an aggregate over the group
keys — so the queries using it (q27, q36, q70, q86) agree field for field.  The figures of the
table in docs/substrait.md are computed here (``test_documented_workload_figures``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import prism_lineage
from prism_lineage.frontends.substrait import SubstraitPlan

datafusion = pytest.importorskip("datafusion")
pa = pytest.importorskip("pyarrow")

ROOT = Path(__file__).resolve().parents[2]
WORKLOADS = ROOT / "tests" / "fixtures" / "workloads"
_ARROW = {"bigint": "int64", "double": "float64", "string": "string", "int": "int32", "date": "date32"}
INDIRECT = {"control", "join", "grouping"}


@dataclass(frozen=True)
class Expected:
    decorrelated: frozenset[str] = frozenset()
    distinct_aggregates: frozenset[str] = frozenset()
    not_written: dict[str, str] = field(default_factory=dict)  # query → what DataFusion says


EXPECTED = {
    "tpch": Expected(decorrelated=frozenset({"q02", "q04", "q17", "q20", "q21", "q22"})),
    "tpcds": Expected(
        decorrelated=frozenset({"q01", "q06", "q10", "q16", "q30", "q32", "q35", "q41", "q69", "q81", "q92", "q94"}),
        distinct_aggregates=frozenset({"q38", "q87"}),
        not_written={"q49": "Unsupported SQL type DEC", "q72": "Cannot coerce arithmetic expression"},
    ),
}
QUERIES = [(w, p) for w in EXPECTED for p in sorted((WORKLOADS / w).glob("q*.sql"))]


def schema(workload: str) -> dict:
    return json.loads((WORKLOADS / workload / "schema.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def sessions(tmp_path_factory) -> dict:
    import pyarrow.parquet as pq

    out = {}
    for workload in EXPECTED:
        folder = tmp_path_factory.mktemp(workload)
        ctx = datafusion.SessionContext()
        for table, columns in schema(workload).items():
            data = pa.table({c: pa.array([], type=getattr(pa, _ARROW[t])()) for c, t in columns.items()})
            pq.write_table(data, folder / f"{table}.parquet")
            ctx.register_parquet(table, str(folder / f"{table}.parquet"))
        out[workload] = ctx
    return out


def _sources(answer_field: dict) -> list[tuple[str, str, str, str]]:
    return [(s["column"], s["relationship"], s["transformation"], s["confidence"]) for s in answer_field["sources"]]


_ANSWERS: dict[tuple[str, str], tuple[dict, dict]] = {}


def answers(sessions, workload: str, path: Path) -> tuple[dict, dict]:
    """(the SQL frontend's answer, the answer for DataFusion's plan) of one query, computed once
    per run.  Correlated subqueries are written only once DataFusion's optimiser has turned them
    into joins."""
    from datafusion.substrait import Producer

    key = (workload, path.stem)
    if key not in _ANSWERS:
        sql = path.read_text(encoding="utf-8").strip().rstrip(";")
        ctx = sessions[workload]
        frame = ctx.sql(sql)
        if path.stem in EXPECTED[workload].decorrelated:
            with pytest.raises(Exception, match="OuterReferenceColumn"):  # why it goes through the optimiser
                Producer.to_substrait_plan(frame.logical_plan(), ctx)
            logical = frame.optimized_logical_plan()
        else:
            logical = frame.logical_plan()
        plan = SubstraitPlan.from_bytes(Producer.to_substrait_plan(logical, ctx).encode(), schema=schema(workload))
        from_plan = prism_lineage.explain(plan).model_dump()["statements"][0]
        from_sql = prism_lineage.explain(sql, schema=schema(workload)).model_dump()["statements"][0]
        _ANSWERS[key] = (from_sql, from_plan)
    return _ANSWERS[key]


@pytest.mark.parametrize("workload, path", QUERIES, ids=lambda v: v.stem if isinstance(v, Path) else v)
def test_workload_plan_explains_like_its_sql(sessions, workload: str, path: Path) -> None:
    from datafusion.substrait import Producer

    expected = EXPECTED[workload]
    if path.stem in expected.not_written:
        ctx = sessions[workload]
        sql = path.read_text(encoding="utf-8").strip().rstrip(";")
        with pytest.raises(Exception, match=expected.not_written[path.stem]):
            Producer.to_substrait_plan(ctx.sql(sql).logical_plan(), ctx)
        return
    from_sql, from_plan = answers(sessions, workload, path)
    # Names of unaliased expressions are each producer's own (``SUM(ss_net_profit)`` in SQL,
    # ``sum(store_sales.ss_net_profit)`` from DataFusion): fields are compared by position.
    assert len(from_plan["fields"]) == len(from_sql["fields"])
    differs = False
    for sql_field, plan_field in zip(from_sql["fields"], from_plan["fields"]):
        wanted, found = _sources(sql_field), _sources(plan_field)
        differs |= wanted != found
        name = sql_field["name"]
        if path.stem in expected.decorrelated | expected.distinct_aggregates:
            assert [s for s in found if s[1] == "value"] == [s for s in wanted if s[1] == "value"], name
            assert {s[1] for s in set(wanted) ^ set(found)} <= INDIRECT, name
        else:
            assert found == wanted, name
    special = expected.decorrelated | expected.distinct_aggregates
    assert differs == (path.stem in special), "listed as differing but agrees (or the reverse)"
    if path.stem not in special:
        assert from_plan["uncertain"] == from_sql["uncertain"]


def figures(sessions, workload: str) -> tuple[int, ...]:
    """One row of the table in docs/substrait.md: queries, queries written as planned, their
    fields that agree and all their fields, queries decorrelated first, their fields whose value
    lineage agrees and all their fields, queries DataFusion does not write."""
    expected = EXPECTED[workload]
    paths = sorted((WORKLOADS / workload).glob("q*.sql"))
    planned = agree = total = value_agree = value_total = 0
    for path in paths:
        if path.stem in expected.not_written:
            continue
        from_sql, from_plan = answers(sessions, workload, path)
        decorrelated = path.stem in expected.decorrelated
        planned += not decorrelated
        for sql_field, plan_field in zip(from_sql["fields"], from_plan["fields"]):
            wanted, found = _sources(sql_field), _sources(plan_field)
            if decorrelated:
                value_total += 1
                value_agree += [s for s in found if s[1] == "value"] == [s for s in wanted if s[1] == "value"]
            else:
                total += 1
                agree += found == wanted
    return (len(paths), planned, agree, total, len(expected.decorrelated), value_agree, value_total,
            len(expected.not_written))


@pytest.mark.parametrize("workload, label", [("tpch", "TPC-H"), ("tpcds", "TPC-DS")])
def test_documented_workload_figures(sessions, workload: str, label: str) -> None:
    """docs/substrait.md states, per workload, how many fields agree: it must stay true."""
    text = (ROOT / "docs" / "substrait.md").read_text(encoding="utf-8")
    row = re.search(rf"^\| {label} \((\d+)\) \| (\d+) \| (\d+) of (\d+) \| (\d+) \| (\d+) of (\d+) \| (\d+)",
                    text, re.MULTILINE)
    assert row, f"docs/substrait.md has no row for {label}"
    assert figures(sessions, workload) == tuple(int(g) for g in row.groups())


def sql_twin_figures(sessions, workload: str) -> tuple[int, int, int, int]:
    """(queries DataFusion writes, of all queries, fields whose sources all equal the SQL's,
    fields compared): the producer's row of docs/agreement.md."""
    expected = EXPECTED[workload]
    paths = sorted((WORKLOADS / workload).glob("q*.sql"))
    written = [p for p in paths if p.stem not in expected.not_written]
    equal = compared = 0
    for path in written:
        from_sql, from_plan = answers(sessions, workload, path)
        for sql_field, plan_field in zip(from_sql["fields"], from_plan["fields"]):
            compared += 1
            equal += set(_sources(sql_field)) == set(_sources(plan_field))
    return len(written), len(paths), equal, compared


def test_documented_tpch_agreement_with_sql_twins(sessions) -> None:
    """docs/agreement.md, "Plans from engines": DataFusion's row over TPC-H."""
    text = (ROOT / "docs" / "agreement.md").read_text(encoding="utf-8")
    row = re.search(r"^\| DataFusion \d+ \(Substrait\) \| (\d+) of (\d+) \| (\d+) of (\d+) \|", text, re.MULTILINE)
    assert row, "docs/agreement.md has no row for DataFusion"
    assert sql_twin_figures(sessions, "tpch") == tuple(int(g) for g in row.groups())
