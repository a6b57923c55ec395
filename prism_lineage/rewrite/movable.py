"""Whether an expression may be moved, copied or read in another place without changing
meaning or lineage.

Lineage reads an expression in two ways (lineage/expression_inputs.py): as a *value*
(``value_inputs``: the function registry decides each call's transformation, confidence,
control-only arguments and whether nested paths pass through) and as a *reader* of fields
(``read_fields``: every field, for control/join/grouping … lineage).  They agree only for
expressions built from field references, literals and calls the registry calls exact over
all their arguments.  Such an expression is **transparent**: a filter may read it in place of
the field it computes (pushed through a projection) and a projection may inline it, and every
answer stays the same.  Anything else — a subquery, an opaque function, a function with
control-only arguments, a nested access, a candidate column of schema-less tables — keeps its
place unless the reader composes with it exactly as lineage composes two operators
(``can_substitute``).
"""

from __future__ import annotations

from ..functions import FunctionRegistry
from ..ir import Call, Expr, FieldRef, Literal, OuterRef
from ..ir.expressions import children, iter_tree
from ..lineage.kinds import Confidence


def is_reference_or_literal(expr: Expr) -> bool:
    return isinstance(expr, (FieldRef, OuterRef, Literal))


def is_exact_call(call: Call, functions: FunctionRegistry) -> bool:
    """An exact function whose every argument flows into its value."""
    facts = functions.classify(call)
    return facts.confidence is Confidence.EXACT and not facts.control


def is_transparent(expr: Expr, functions: FunctionRegistry) -> bool:
    for node in iter_tree(expr):
        if isinstance(node, Call):
            if not is_exact_call(node, functions):
                return False
        elif not is_reference_or_literal(node):
            return False
    return True


def is_deterministic(expr: Expr, functions: FunctionRegistry) -> bool:
    """Same inputs, same value: safe to evaluate at another place or another number of
    times.  A function the registry does not describe and the frontend does not know may do
    anything, so it is not."""
    for node in iter_tree(expr):
        if isinstance(node, Call):
            info = functions.get(node.function)
            if info is not None:
                if not info.deterministic:
                    return False
            elif not node.known:
                return False
    return True


def can_substitute(reader: Expr, reference: Expr, replacement: Expr, functions: FunctionRegistry, *,
                   as_value: bool) -> bool:
    """Whether ``reader`` may read ``replacement`` in place of the node ``reference`` (a
    reference to the field ``replacement`` computes) with unchanged lineage.

    A reference or a literal always may.  Anything else only where the reference is read
    whole: every node above it in ``reader`` is a call (a nested access would read a path of
    the field, which lineage extends through a computed field but not through an expression).
    Then a transparent replacement may; as a value (``as_value``), any replacement may when
    every call above is exact over all its arguments, since ``value_inputs`` then composes
    with the replacement as lineage composes two operators.
    """
    if is_reference_or_literal(replacement):
        return True
    above = _ancestors(reader, reference)
    if above is None or not all(isinstance(node, Call) for node in above):
        return False
    if is_transparent(replacement, functions):
        return True
    return as_value and all(is_exact_call(node, functions) for node in above)


def _ancestors(expr: Expr, target: Expr) -> list[Expr] | None:
    """The nodes above ``target`` (found by identity) in ``expr``, root first."""
    stack: list[tuple[Expr, list[Expr]]] = [(expr, [])]
    while stack:
        node, above = stack.pop()
        if node is target:
            return above
        for child in children(node):
            stack.append((child, above + [node]))
    return None
