"""Frontends lower user input (SQL, dataframe plans, Substrait) into the Prism IR."""

from __future__ import annotations

from typing import Any


def as_plan_source(obj: Any, schema: Any = None) -> Any:
    """A plan object of another library that ``explain`` reads as it is — a Polars
    ``LazyFrame`` — wrapped as a plan source; anything else unchanged.  Told apart by type
    name, so that the library is imported only when one of its objects is given."""
    from .polars import PolarsPlan, is_lazy_frame

    if is_lazy_frame(obj):
        return PolarsPlan(obj, schema=schema)
    return obj
