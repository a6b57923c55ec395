"""prism_lineage: exact, honest lineage for SQL, dataframe-style and Substrait plans.

The public names are imported when first used (PEP 562): ``import prism_lineage`` costs almost
nothing, so a command that answers from the control plane's store (``prism-lineage lineage``)
or prints its help never pays for sqlglot, pydantic or the engine.
"""

from __future__ import annotations

import sys
import types
from importlib import import_module

from .errors import (
    AmbiguousColumnError,
    AmbiguousFieldError,
    AmbiguousTableError,
    InputError,
    InvalidStatementError,
    MissingTableError,
    NestingTooDeepError,
    ParseError,
    PrismError,
    ResolutionError,
    SchemaError,
    UnknownColumnError,
    UnknownDialectError,
    UnknownFieldError,
    UnknownTableError,
    UnknownTargetError,
    UsageError,
)

__version__ = "0.1.0"

# name -> the module that defines it (imported on first use)
_LAZY = {
    "Catalog": ".catalog", "load_schema": ".catalog",
    "Explanation": ".explain", "explain": ".explain", "lineage_graphs": ".explain",
    "FunctionInfo": ".functions", "FunctionRegistry": ".functions",
    "LineageGraph": ".lineage.graph",
    "Confidence": ".lineage.kinds", "Relationship": ".lineage.kinds", "Transformation": ".lineage.kinds",
}

__all__ = [
    "AmbiguousColumnError", "AmbiguousFieldError", "AmbiguousTableError", "Catalog", "Confidence", "Explanation", "FunctionInfo",
    "FunctionRegistry", "InputError",
    "InvalidStatementError", "LineageGraph", "MissingTableError", "NestingTooDeepError", "ParseError", "PrismError",
    "Relationship", "ResolutionError",
    "SchemaError", "Transformation", "UnknownColumnError", "UnknownDialectError", "UnknownFieldError", "UnknownTableError",
    "UnknownTargetError", "UsageError", "explain", "lineage_graphs", "load_schema",
]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value  # the next access is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


class _Package(types.ModuleType):
    """``prism_lineage.explain`` is the function, as it always was, although a subpackage has
    the same name: importing the subpackage must not replace the attribute with the module
    (the import system sets it on the parent; the module stays in ``sys.modules``)."""

    def __setattr__(self, name: str, value) -> None:
        if name in _LAZY and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
