"""The function registry: lineage facts by function name, and how a call is classified."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from ..ir import Call
from ..lineage.kinds import Confidence, Transformation


class FunctionKind(StrEnum):
    SCALAR = "scalar"  # one value per row
    AGGREGATE = "aggregate"  # one value per group (the SQL frontend builds an Aggregate measure)
    WINDOW = "window"  # ranking and offset functions, only valid with OVER (…)
    GENERATOR = "generator"  # zero or more rows per input row (UNNEST, EXPLODE, table functions)


# An argument is named by its 0-based position as written, or by its parameter name (the name
# the frontend gives it: sqlglot's ``this``, ``unit`` … for the built-ins it models).
ArgRef = int | str


@dataclass(frozen=True, slots=True)
class FunctionInfo:
    """Lineage facts about one function (docs/functions.md).

    ``transformation`` / ``confidence``: what a call does to the values it reads, and how
    sure the engine is of its inputs.  ``value_args``: the arguments whose values flow into
    the result (``None``: all but ``control_args``); every other argument only decides *how*
    the result is computed (a unit, a format, an offset) and is read as a control input.
    ``kind``: scalar, aggregate, window or generator.  ``deterministic``: false for functions
    whose result changes from call to call (``RANDOM()``, ``NOW()``).  ``keeps_paths``: a
    nested path read from the call's result is a path into its value argument (``PARSE_JSON(s)
    :a`` reads ``s``'s key ``a``).  ``outputs``: the columns a user-declared generator makes.
    """

    name: str
    transformation: Transformation = Transformation.EXPRESSION
    confidence: Confidence = Confidence.EXACT
    value_args: tuple[ArgRef, ...] | None = None
    kind: str = FunctionKind.SCALAR.value
    deterministic: bool = True
    doc: str | None = None
    control_args: tuple[ArgRef, ...] = ()
    keeps_paths: bool = False
    outputs: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CallLineage:
    """How the lineage rules read one call: the transformation and confidence of its value
    inputs, why they are not exact (``reason``), which argument positions are control-only,
    and whether a nested path read from the result passes through to its value arguments."""

    transformation: Transformation
    confidence: Confidence
    reason: str | None = None
    control: frozenset[int] = frozenset()
    keeps_paths: bool = False
    value_args: tuple[int, ...] | None = None  # positions of the value arguments (None: every argument)

    def __iter__(self):
        """The older tuple form: (transformation, confidence, reason, value_args)."""
        return iter((self.transformation, self.confidence, self.reason, self.value_args))


_PLAIN = CallLineage(Transformation.EXPRESSION, Confidence.EXACT)
_BUILTINS: "FunctionRegistry | None" = None


class FunctionRegistry:
    """Function facts by lower-case name; ``classify`` answers the lineage rules."""

    __slots__ = ("_infos",)

    def __init__(self, infos: Iterable[FunctionInfo] = ()):
        self._infos: dict[str, FunctionInfo] = {}
        for info in infos:
            self.register(info)

    @classmethod
    def default(cls) -> "FunctionRegistry":
        """The built-in facts (``prism_lineage.functions.builtins``): a fresh registry, so
        what a caller registers stays its own; the built-ins are read once per process."""
        global _BUILTINS
        if _BUILTINS is None:
            from .builtins import builtin_functions

            _BUILTINS = cls(builtin_functions())
        return _BUILTINS.copy()

    def copy(self) -> "FunctionRegistry":
        registry = FunctionRegistry.__new__(FunctionRegistry)
        registry._infos = dict(self._infos)  # FunctionInfo is frozen: sharing entries is safe
        return registry

    def register(self, info: FunctionInfo) -> None:
        """Add or replace the facts of ``info.name`` (a user's entry wins over a built-in)."""
        self._infos[info.name.lower()] = info

    def get(self, name: str) -> FunctionInfo | None:
        return self._infos.get(name.lower())

    def __contains__(self, name: str) -> bool:
        return name.lower() in self._infos

    def __iter__(self):
        return iter(sorted(self._infos.values(), key=lambda info: info.name))

    def __len__(self) -> int:
        return len(self._infos)

    def kind_of(self, name: str) -> str | None:
        info = self._infos.get(name.lower())
        return info.kind if info is not None else None

    def classify(self, call: Call) -> CallLineage:
        """How the value inputs of ``call`` reach its result."""
        if call.opaque_reason is not None:
            return opaque_call(call)
        info = self._infos.get(call.function)
        if info is not None:
            reason = None
            if info.confidence is not Confidence.EXACT:
                reason = f"function {call.function} {info.doc}" if info.doc else \
                    f"function {call.function} is declared {info.confidence.value}"
            control = _control_positions(info, call)
            value_args = tuple(i for i in range(len(call.args)) if i not in control) if control else None
            return CallLineage(info.transformation, info.confidence, reason, control, info.keeps_paths, value_args)
        if call.known:
            return _PLAIN
        return CallLineage(
            Transformation.OPAQUE,
            Confidence.CONSERVATIVE,
            f"function {call.function} is not in the function registry: every argument is assumed to flow "
            "into its result",
        )

    # --- loading (see loading.py) ----------------------------------------------------------

    def load(self, document, source: str = "functions") -> "FunctionRegistry":
        """Add the functions of a YAML/JSON document (see docs/functions.md)."""
        from .loading import infos_from_document

        for info in infos_from_document(document, source):
            self.register(info)
        return self

    def load_file(self, path) -> "FunctionRegistry":
        from .loading import read_document

        document, source = read_document(path)
        return self.load(document, source)


def opaque_call(call: Call) -> CallLineage:
    """A call the frontend knows nothing of (``Call.opaque_reason``): every argument may flow
    into its result, and what else the function reads is not known."""
    return CallLineage(Transformation.OPAQUE, Confidence.UNKNOWN, call.opaque_reason)


def _control_positions(info: FunctionInfo, call: Call) -> frozenset[int]:
    """The positions of ``call``'s arguments that are control-only under ``info``."""
    if info.value_args is None and not info.control_args:
        return frozenset()
    count = len(call.args)
    params = call.params if len(call.params) == count else ()

    def positions(refs: tuple[ArgRef, ...]) -> set[int]:
        out: set[int] = set()
        for ref in refs:
            if isinstance(ref, int):
                # Positions count the arguments as written; a frontend that knows parameter
                # names (and so may store them in another order) is matched by name only.
                if not params and 0 <= ref < count:
                    out.add(ref)
            else:
                out.update(i for i, p in enumerate(params) if p == ref)
        return out

    control = positions(info.control_args)
    if info.value_args is not None:
        control |= set(range(count)) - positions(info.value_args)
    return frozenset(control)
