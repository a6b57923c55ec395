"""The function registry: lineage-relevant facts about functions (docs/functions.md).

Most functions need no entry: a built-in the frontend recognises is a plain expression over
all its arguments (exact).  The registry describes the ones whose lineage is not derivable
from their argument structure: aggregates, window and generator functions the frontend must
recognise, masks (``sha2``, ``md5`` …), format parsers, functions whose arguments are partly
control-only (a unit, a format, an offset), nondeterminism, and user-defined functions.  A
function the frontend does not recognise and the registry does not describe is **opaque**,
with conservative confidence and a reason naming it.

Users extend it from Python (``FunctionRegistry.default().register(FunctionInfo(...))``) or
from a YAML/JSON file (``prism-lineage explain --functions FILE``).
"""

from .builtins import builtin_functions
from .registry import ArgRef, CallLineage, FunctionInfo, FunctionKind, FunctionRegistry

__all__ = ["ArgRef", "CallLineage", "FunctionInfo", "FunctionKind", "FunctionRegistry", "builtin_functions"]
