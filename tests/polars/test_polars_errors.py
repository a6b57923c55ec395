"""What the Polars frontend refuses, and how: a clear error naming the plan node (its path and
kind), never a traceback or a guess."""

from __future__ import annotations

import sys
from datetime import date

import pytest

pl = pytest.importorskip("polars")

import prism_lineage  # noqa: E402
from prism_lineage.errors import InvalidStatementError, UsageError  # noqa: E402
from prism_lineage.frontends.polars import InvalidPolarsPlanError, PolarsPlan, PolarsUnavailableError, named  # noqa: E402
from prism_lineage.frontends.polars import snapshot  # noqa: E402

ORDERS = pl.DataFrame({"order_id": [1], "amount": [2.0], "day": [date(2024, 1, 1)]})


def test_an_unread_expression_is_refused_naming_the_node() -> None:
    frame = named("orders", ORDERS).select(pl.struct("order_id", "amount").struct.with_fields(
        pl.field("amount").alias("doubled")).alias("s"))
    with pytest.raises(InvalidPolarsPlanError) as caught:
        prism_lineage.explain(frame)
    assert (caught.value.path, caught.value.node) == ("root.expr[0]", "StructEval")
    assert str(caught.value).startswith("Polars plan at root.expr[0] (StructEval): expressions of kind StructEval")
    assert isinstance(caught.value, InvalidStatementError) and caught.value.exit_code == 6


def test_map_groups_is_opaque_with_its_reason() -> None:
    """A Python function over each group: every input column may feed every output, unknown, said."""
    frame = named("orders", ORDERS).group_by("order_id").map_groups(lambda df: df, schema=None)
    statement = prism_lineage.explain(frame).statements[0]
    assert {s.confidence for f in statement.fields for s in f.sources} == {"unknown"}
    assert statement.uncertain and "only the function knows" in statement.uncertain[0].reason


def test_a_plan_polars_cannot_resolve_is_refused() -> None:
    frame = named("orders", ORDERS).select(pl.col("missing"))
    with pytest.raises(InvalidPolarsPlanError, match=r"Polars could not resolve the plan: .*missing"):
        prism_lineage.explain(frame)


def test_other_polars_versions_are_refused(monkeypatch) -> None:
    monkeypatch.setattr(pl, "__version__", "2.0.0")
    with pytest.raises(PolarsUnavailableError, match=r"Polars 2\.0\.0 is not a version prism_lineage reads: it reads "
                                                     r"the plans of Polars 2\.1 up to \(not including\) 2\.2"):
        prism_lineage.explain(named("orders", ORDERS) if False else pl.LazyFrame({"a": [1]}))


def test_another_visitor_version_is_refused(monkeypatch) -> None:
    monkeypatch.setattr(snapshot, "VISITOR_MAJOR", 99)
    with pytest.raises(PolarsUnavailableError, match="plan visitor is version 16, prism_lineage reads version 99"):
        prism_lineage.explain(pl.LazyFrame({"a": [1]}))


def test_missing_polars_says_how_to_install(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "polars", None)
    with pytest.raises(PolarsUnavailableError, match=r"Polars is not installed: install prism-lineage\[polars\]"):
        named("orders", ORDERS)
    assert PolarsUnavailableError.exit_code == 2


def test_named_takes_a_table_not_a_computed_frame() -> None:
    with pytest.raises(UsageError, match="named\\(\\) names a table: .* not a computed frame \\(its plan starts "
                                         "with Filter\\)"):
        named("orders", ORDERS.lazy().filter(pl.col("amount") > 1))
    with pytest.raises(UsageError, match="a non-empty string"):
        named("", ORDERS)
    with pytest.raises(UsageError, match="not dict"):
        named("orders", {"a": [1]})


def test_polars_plan_takes_a_lazy_frame() -> None:
    with pytest.raises(UsageError, match="PolarsPlan reads a Polars LazyFrame, not DataFrame"):
        PolarsPlan(ORDERS)


def test_an_unnamed_frame_is_said_in_uncertain() -> None:
    answer = prism_lineage.explain(ORDERS.lazy().select("amount")).statements[0]
    assert answer.fields[0].sources[0].column == "frame1.amount"
    assert "an in-memory DataFrame has no table name" in answer.uncertain[0].reason


def test_a_scan_is_named_by_its_file_stem(tmp_path) -> None:
    ORDERS.write_parquet(tmp_path / "orders.parquet")
    ORDERS.write_csv(tmp_path / "returns.csv")
    frame = pl.scan_parquet(tmp_path / "orders.parquet").join(pl.scan_csv(tmp_path / "returns.csv"), on="order_id")
    answer = prism_lineage.explain(frame.select("order_id", "amount_right")).statements[0]
    assert [s.column for s in answer.fields[1].sources if s.relationship == "value"] == ["returns.amount"]
    assert answer.reads == ["orders", "returns"] if hasattr(answer, "reads") else True
    assert not answer.uncertain


def test_named_overrides_the_stem_and_the_schema_spells_it(tmp_path) -> None:
    ORDERS.write_parquet(tmp_path / "part-0001.parquet")
    frame = named("orders", pl.scan_parquet(tmp_path / "part-0001.parquet"))
    answer = prism_lineage.explain(frame.select("amount"), schema={"shop.orders": {"AMOUNT": "double"}})
    assert answer.statements[0].fields[0].sources[0].column == "shop.orders.AMOUNT"
