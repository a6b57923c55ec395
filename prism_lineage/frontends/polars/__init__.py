"""The Polars frontend: a Polars ``LazyFrame``'s logical plan → the IR.

``prism_lineage.explain`` takes a LazyFrame as it is::

    import polars as pl, prism_lineage
    orders = pl.scan_parquet("data/orders.parquet")          # table "orders" (the file's stem)
    prism_lineage.explain(orders.group_by("customer_id").agg(pl.col("amount").sum()))

An in-memory frame has no table name: give it one with ``named("orders", frame)``.  The plan
is read through Polars' own plan visitor (``snapshot``), rendered as text for origins
(``text``) and lowered operator by operator (``lowering``); specs/polars.md has the rules.
Polars is an optional dependency (``pip install prism-lineage[polars]``), imported only when a
plan is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...catalog import Catalog
from ...errors import UsageError
from ...ir import Statement
from .errors import InvalidPolarsPlanError, PolarsUnavailableError
from .snapshot import NAME_MARK, SUPPORTED, check_version, read_plan

__all__ = ["InvalidPolarsPlanError", "PolarsPlan", "PolarsUnavailableError", "SUPPORTED", "is_lazy_frame", "named"]


def is_lazy_frame(obj: object) -> bool:
    """Is ``obj`` a Polars LazyFrame (told without importing Polars)?"""
    kind = type(obj)
    return kind.__name__ == "LazyFrame" and kind.__module__.split(".")[0] == "polars"


def named(name: str, frame: Any) -> Any:
    """``frame`` (a Polars DataFrame, or a LazyFrame that only reads one) as a table called
    ``name``: its columns are reported as ``name.column``.  The result is a LazyFrame that
    computes the same rows (the name rides through the plan as a column added and dropped
    again, which Polars' optimiser removes when the query runs)."""
    polars = check_version()
    if not isinstance(name, str) or not name:
        raise UsageError("named() takes a table name (a non-empty string) and a Polars frame")
    if isinstance(frame, polars.DataFrame):
        frame = frame.lazy()
    if not isinstance(frame, polars.LazyFrame):
        raise UsageError(f"named() names a Polars DataFrame or LazyFrame, not {type(frame).__name__}")
    root = read_plan(frame)
    if root.kind not in ("DataFrameScan", "Scan"):
        raise UsageError(f"named() names a table: give it a DataFrame or a LazyFrame that only scans one, not a "
                         f"computed frame (its plan starts with {root.kind})")
    return frame.with_columns(polars.lit(name).alias(NAME_MARK)).drop(NAME_MARK)


class PolarsPlan:
    """A LazyFrame's plan, ready to be lowered (``to_statements``) and explained.

    ``schema`` (optional) only spells names: a table the catalog declares is named as the
    catalog names it.  ``name`` names the plan in origins (the file of its plan text)."""

    __slots__ = ("frame", "catalog", "name", "_root", "_statement")

    def __init__(self, frame: Any, *, schema: Mapping[str, Any] | Catalog | None = None,
                 name: str = "<polars plan>"):
        if not is_lazy_frame(frame):
            raise UsageError(f"PolarsPlan reads a Polars LazyFrame, not {type(frame).__name__}")
        self.frame = frame
        self.catalog = schema if isinstance(schema, Catalog) or schema is None else Catalog.from_mapping(schema)
        self.name = name
        self._root = None
        self._statement: Statement | None = None

    @property
    def text(self) -> str:
        """The plan as text, one node a line: origins are spans of this text."""
        from .text import PlanText

        return PlanText(self._plan()).text

    def _plan(self):
        if self._root is None:
            self._root = read_plan(self.frame)
        return self._root

    def to_statements(self) -> list[Statement]:
        if self._statement is None:
            from .lowering import lower_plan

            self._statement = lower_plan(self._plan(), self.catalog, self.name)
        return [self._statement]

    def __repr__(self) -> str:
        return f"PolarsPlan({self.name})"
