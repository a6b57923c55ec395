"""Which fields an expression reads, and how: the inputs the lineage rules turn into edges.

* **value inputs**: fields whose *value* flows into the expression's result, each with the
  strongest transformation on the way (identity for a bare reference), the weakest confidence,
  the reason for it, and the nested ``path`` read inside the field (``.sku``, ``[]``, ``['k']``
  … see specs/nested.md) when only a part of it is read;
* **control inputs**: fields read by arguments that only decide *how* a function computes its
  result (a unit, a format, an offset: the function registry's ``control_args``);
* **reads**: every field read in any role, for indirect dependencies (filters, join keys …).

A path is attributed to a field only when the part read is known: through nested access
(``NestedAccess``) and through functions that keep paths (``PARSE_JSON(s):a`` reads ``s`` at
``.a``).  Any other computation reads its arguments whole.
"""

from __future__ import annotations

from typing import NamedTuple

from ..ir import (
    AccessKind,
    AggregateCall,
    Call,
    CandidateRef,
    Expr,
    FieldRef,
    Literal,
    NestedAccess,
    OuterRef,
    Subquery,
    SubqueryKind,
    WindowCall,
)
from ..ir.expressions import children
from ..functions.registry import opaque_call
from .kinds import Confidence, Transformation, strongest, weakest

EXACT = Confidence.EXACT
_CONSERVATIVE = Confidence.CONSERVATIVE
_IDENTITY = Transformation.IDENTITY
_EXPRESSION = Transformation.EXPRESSION
_AGGREGATE = Transformation.AGGREGATE
_WINDOW = Transformation.WINDOW
_ACCESS = {AccessKind.NESTED: Transformation.NESTED_ACCESS,
           AccessKind.SEMI_STRUCTURED: Transformation.SEMI_STRUCTURED_ACCESS,
           AccessKind.COLUMN: Transformation.IDENTITY}
_WHOLE: tuple[str, ...] = ()
_GROUPING_FUNCTIONS = frozenset({"grouping", "grouping_id"})


class Input(NamedTuple):
    field: str
    transformation: Transformation
    confidence: Confidence
    reason: str | None
    path: str | None  # the part of the field read (path syntax), None: the whole value


# ``Input(...)`` runs a Python-level ``__new__``; the hot paths below build the same tuple
# directly (one per column read of every expression of a plan).
_new = tuple.__new__


def _path(suffix: tuple[str, ...]) -> str | None:
    return "".join(suffix) if suffix else None


def _classify(call: Call, functions):
    if functions is None:
        return opaque_call(call) if call.opaque_reason is not None else None
    return functions.classify(call)


def value_inputs(expr: Expr, functions=None) -> list[Input]:
    """Every field whose value flows into ``expr`` (see the module docstring)."""
    return inputs(expr, functions)[0]


def control_inputs(expr: Expr, functions=None) -> list[Input]:
    """Fields read by control-only arguments of the functions on ``expr``'s value paths."""
    return inputs(expr, functions)[1]


def inputs(expr: Expr, functions=None) -> tuple[list[Input], list[Input]]:
    """(value inputs, control inputs) of ``expr``, in one walk."""
    if type(expr) is FieldRef:
        # Most expressions are a column read as is.
        return [_new(Input, (expr.field, _IDENTITY, EXACT, None, None))], []
    return _walk(expr, functions)


def _walk(expr: Expr, functions) -> tuple[list[Input], list[Input]]:
    values: list[Input] = []
    controls: list[Input] = []
    # (node, transformation so far, confidence so far, reason, part of the node's value read)
    stack: list[tuple[Expr, Transformation, Confidence, str | None, tuple[str, ...]]] = [
        (expr, _IDENTITY, EXACT, None, _WHOLE)
    ]
    push = stack.append
    while stack:
        node, transformation, confidence, reason, suffix = stack.pop()
        if isinstance(node, (FieldRef, OuterRef)):
            values.append(_new(Input, (node.field, transformation, confidence, reason,
                                      "".join(suffix) if suffix else None)))
        elif isinstance(node, NestedAccess):
            step = strongest(transformation, _ACCESS[node.kind])
            inner_confidence, inner_reason = confidence, reason
            if not node.exact:
                inner_confidence = weakest(confidence, _CONSERVATIVE)
                inner_reason = reason or node.reason
            stack.append((node.base, step, inner_confidence, inner_reason, node.steps + suffix))
            stack.extend((d, step, inner_confidence, inner_reason, _WHOLE) for d in node.dynamic)
        elif isinstance(node, Call):
            facts = _classify(node, functions)
            if suffix and (facts is None or not facts.keeps_paths) and confidence is EXACT:
                # A part of a computed value (``CAST(ROW(a, b) AS ROW(x INT, y INT)).x``) depends
                # on some of its inputs, and which is not known: every input is listed, never
                # exactly (specs/nested.md rule 3, as when the value is computed in a derived table).
                confidence = _CONSERVATIVE
                reason = f"the part {_path(suffix)} is read from a computed value, so every input of that value is listed"
            if facts is None:
                step = strongest(transformation, _EXPRESSION)
                for arg in node.args:  # (a loop, not a generator: every call of every expression)
                    push((arg, step, confidence, reason, _WHOLE))
                continue
            step = strongest(transformation, facts.transformation)
            inner_confidence = weakest(confidence, facts.confidence)
            # The innermost non-exact function names the reason, as it does when the same
            # computation is split over derived tables (the source side's reason comes first).
            inner_reason = (facts.reason if facts.confidence is not EXACT else None) or reason
            inner_suffix = suffix if facts.keeps_paths else _WHOLE
            for position, arg in enumerate(node.args):
                if position in facts.control:
                    controls.extend(read_fields(arg, functions))
                else:
                    stack.append((arg, step, inner_confidence, inner_reason, inner_suffix))
        elif isinstance(node, AggregateCall):
            if node.function in _GROUPING_FUNCTIONS:
                # GROUPING(a, b) says which keys a row's grouping set rolled up: its value comes
                # from the grouping set, not from the keys' data (they are its grouping sources).
                continue
            step = strongest(transformation, _AGGREGATE)
            for arg in node.args:
                push((arg, step, confidence, reason, _WHOLE))
        elif isinstance(node, WindowCall):
            # The window function's own inputs: ``SUM(x) OVER (…)`` is a window, not an
            # aggregate.  Control-only arguments (LAG's offset) shape the window instead.
            step = strongest(transformation, _WINDOW)
            function = node.function
            skip = frozenset()
            if isinstance(function, Call):
                facts = _classify(function, functions)
                skip = facts.control if facts is not None else frozenset()
            stack.extend((arg, step, confidence, reason, _WHOLE)
                         for i, arg in enumerate(getattr(function, "args", ())) if i not in skip)
        elif isinstance(node, Subquery):
            if node.kind is SubqueryKind.SCALAR:
                values.append(Input(node.relation.fields[0].id, transformation, confidence, reason, _path(suffix)))
            elif node.kind is not SubqueryKind.EXISTS:
                step = strongest(transformation, _EXPRESSION)
                if node.needle is not None:
                    stack.append((node.needle, step, confidence, reason, _WHOLE))
                # ``(a, b) IN (SELECT x, y …)`` compares every column of the subquery.
                values.extend(Input(f.id, step, confidence, reason, None) for f in node.relation.fields)
        elif isinstance(node, CandidateRef):
            for field in node.fields:
                values.append(Input(field, transformation, weakest(confidence, _CONSERVATIVE),
                                    reason or node.reason, _path(suffix)))
        elif not isinstance(node, Literal):
            step = strongest(transformation, _EXPRESSION)
            for child in children(node):
                push((child, step, confidence, reason, _WHOLE))
    return values, controls


def read_fields(expr: Expr, functions=None) -> list[Input]:
    """Every field ``expr`` reads, in any role (transformation is not tracked: identity)."""
    if type(expr) is FieldRef:
        return [_new(Input, (expr.field, _IDENTITY, EXACT, None, None))]
    out: list[Input] = []
    stack: list[tuple[Expr, Confidence, str | None, tuple[str, ...]]] = [(expr, EXACT, None, _WHOLE)]
    push = stack.append
    identity = _IDENTITY
    while stack:
        node, confidence, reason, suffix = stack.pop()
        if isinstance(node, (FieldRef, OuterRef)):
            out.append(_new(Input, (node.field, identity, confidence, reason, "".join(suffix) if suffix else None)))
        elif isinstance(node, CandidateRef):
            out.extend(Input(field, identity, weakest(confidence, _CONSERVATIVE), reason or node.reason,
                             _path(suffix)) for field in node.fields)
        elif isinstance(node, NestedAccess):
            inner_confidence, inner_reason = confidence, reason
            if not node.exact:
                inner_confidence, inner_reason = weakest(confidence, _CONSERVATIVE), reason or node.reason
            stack.append((node.base, inner_confidence, inner_reason, node.steps + suffix))
            stack.extend((d, inner_confidence, inner_reason, _WHOLE) for d in node.dynamic)
        elif isinstance(node, Call):
            facts = _classify(node, functions)
            keep = suffix if facts is not None and facts.keeps_paths else _WHOLE
            if facts is not None and facts.confidence is not EXACT:
                # A predicate over an opaque function reads its arguments only as surely as the
                # function's value does (the same as when the value is computed in a derived
                # table and the predicate reads that field).
                inner_confidence, inner_reason = weakest(confidence, facts.confidence), facts.reason or reason
            else:
                inner_confidence, inner_reason = confidence, reason
            for arg in node.args:  # (a loop, not a generator: every call of every predicate)
                push((arg, inner_confidence, inner_reason, keep))
        else:
            if isinstance(node, Subquery) and node.kind is not SubqueryKind.EXISTS:
                out.extend(Input(f.id, identity, confidence, reason, None) for f in node.relation.fields)
            for child in children(node):
                push((child, confidence, reason, _WHOLE))
    return out
