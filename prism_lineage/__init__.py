"""prism_lineage: exact, honest lineage for SQL, dataframe-style and Substrait plans."""

from .catalog import Catalog, load_schema
from .errors import (
    AmbiguousColumnError,
    AmbiguousTableError,
    InputError,
    InvalidStatementError,
    NestingTooDeepError,
    ParseError,
    PrismError,
    ResolutionError,
    SchemaError,
    UnknownColumnError,
    UnknownDialectError,
    UnknownTableError,
    UnknownTargetError,
    UsageError,
)
from .explain import Explanation, explain, lineage_graphs
from .functions import FunctionInfo, FunctionRegistry
from .lineage.graph import LineageGraph
from .lineage.kinds import Confidence, Relationship, Transformation

__version__ = "0.1.0"

__all__ = [
    "AmbiguousColumnError", "AmbiguousTableError", "Catalog", "Confidence", "Explanation", "FunctionInfo",
    "FunctionRegistry", "InputError",
    "InvalidStatementError", "LineageGraph", "NestingTooDeepError", "ParseError", "PrismError", "Relationship", "ResolutionError",
    "SchemaError", "Transformation", "UnknownColumnError", "UnknownDialectError", "UnknownTableError",
    "UnknownTargetError", "UsageError", "explain", "lineage_graphs", "load_schema",
]
