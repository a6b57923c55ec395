"""The pipeline's two guarantees over generated plans and every known query: ``explain``
answers are identical before and after it, and every rewritten target names the authored
targets (and origins) it stands for (``rewrite_checks``).

Plans come from a grammar aimed at the rewrites (``rewrite_queries``), from the engine's own
property grammar (tests/test_properties.py), from dataframe-style plans, and from every
golden case (tests/golden/**/*.sql, the dataframe goldens tests/golden/frame/*/*.py and the
Substrait goldens tests/golden/substrait/*/*.plan.json) and TPC-H / TPC-DS query.
"""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest
from conftest import SHARED
from hypothesis import HealthCheck, given, settings
from rewrite_checks import check_authored_links, check_same_lineage, rewritten
from rewrite_queries import rewrite_queries

import prism_lineage
from prism_lineage.explain import lower
from prism_lineage.functions import FunctionRegistry
from prism_lineage.rewrite import RewriteError, rewrite_statement

TESTS = Path(__file__).resolve().parent.parent
GOLDEN = TESTS / "golden"

# explain() raises the recursion limit on first use; do it before hypothesis watches it.
prism_lineage.explain("SELECT 1")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rewrite_queries())
def test_generated_queries_keep_their_lineage(sql: str) -> None:
    # The grammar writes valid queries only: any error, typed or not, fails the test.
    assert rewritten(sql)


def test_engine_property_queries_keep_their_lineage() -> None:
    from test_properties import cases

    @settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(cases())
    def check(case) -> None:
        world, sql, dialect = case
        try:
            rewritten(sql, world.schema, dialect)
        except RewriteError:
            raise
        except prism_lineage.PrismError:
            return

    check()


# --- every golden case and workload query ------------------------------------------------------


def golden_cases() -> list[Path]:
    return sorted(p for p in GOLDEN.glob("**/*.sql") if "schemas" not in p.parts)


def workload_queries() -> list[Path]:
    root = TESTS / "fixtures" / "workloads"
    if not root.is_dir():
        root = SHARED / "workloads"
    return sorted(root.glob("*/q*.sql")) if root.is_dir() else []


@pytest.mark.parametrize("path", golden_cases(), ids=lambda p: str(p.relative_to(GOLDEN).with_suffix("")))
def test_golden_cases_keep_their_lineage(path: Path) -> None:
    from test_golden import read_case

    case = read_case(path)
    _check(case.sql, case.schema, case.dialect)


@pytest.mark.parametrize("path", workload_queries(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_workload_queries_keep_their_lineage(path: Path) -> None:
    schema = json.loads((path.parent / "schema.json").read_text(encoding="utf-8"))
    fired = _check(path.read_text(encoding="utf-8"), schema, None)
    assert fired is not None


def test_the_workloads_are_there_to_rewrite() -> None:
    if not workload_queries():
        pytest.skip("no TPC-H/TPC-DS workloads in tests/fixtures/workloads or ../shared/workloads")
    assert len(workload_queries()) >= 22


def _check(sql: str, schema, dialect) -> list[tuple[str, ...]] | None:
    try:
        statements = lower(sql, schema, dialect)
    except prism_lineage.PrismError:
        return None  # a golden case of an error: nothing to rewrite
    return _check_statements(statements, FunctionRegistry.default())


def _check_statements(statements, registry: FunctionRegistry) -> list[tuple[str, ...]]:
    results = [rewrite_statement(s, registry) for s in statements]
    check_same_lineage(statements, [r.rewritten for r in results], registry)
    for result in results:
        check_authored_links(result)
    return [r.fired for r in results]


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("substrait/*/*.plan.json")),
                         ids=lambda p: f"{p.parent.name}/{p.name.removesuffix('.plan.json')}")
def test_substrait_golden_plans_keep_their_lineage(path: Path) -> None:
    from prism_lineage.frontends.substrait import SubstraitPlan

    _check_statements(SubstraitPlan.from_file(path).to_statements(), FunctionRegistry.default())


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("frame/*/*.py")), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_dataframe_golden_plans_keep_their_lineage(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from prism_lineage.explain import _with_plan_functions

    monkeypatch.syspath_prepend(str(path.parent.parent))  # the cases import frame_tables.py
    plan = runpy.run_path(str(path), run_name=f"rewrite_{path.parent.name}_{path.stem}")["plan"]
    registry = _with_plan_functions(FunctionRegistry.default(), plan)
    _check_statements(plan.to_statements(), registry)


# --- dataframe-style plans --------------------------------------------------------------------


def test_dataframe_plans_keep_their_lineage() -> None:
    from prism_lineage.frame import col, table

    orders = table("orders", schema={"order_id": "int", "customer_id": "int", "status": "varchar",
                                     "amount": "decimal"})
    customers = table("customers", schema={"customer_id": "int", "name": "varchar"})
    frames = [
        orders.join(customers, on="customer_id").filter(col("status") == "paid")
        .select("order_id", (col("amount") * 2).alias("double")).select((col("double") + 1).alias("more")),
        orders.select("customer_id", (col("amount") + 1).alias("a1")).filter(col("a1") > 10),
        orders.join(customers, on="customer_id", how="left").filter(col("name") == "x"),
    ]
    registry = FunctionRegistry.default()
    for frame in frames:
        statements = frame.to_statements()
        results = [rewrite_statement(s, registry) for s in statements]
        assert any(r.fired for r in results)
        check_same_lineage(statements, [r.rewritten for r in results], registry)
        for result in results:
            check_authored_links(result)
