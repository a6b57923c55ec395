"""What rules share: where edges go, and how an expression's inputs are read."""

from __future__ import annotations

from ...ir import (
    AggregateCall,
    Call,
    CandidateRef,
    Expr,
    FieldRef,
    Literal,
    OuterRef,
    Relation,
    Subquery,
    SubqueryKind,
    WindowCall,
)
from ...ir.expressions import children
from ..edges import Edge, Link
from ..kinds import Confidence, Relationship, Transformation, strongest

EXACT = Confidence.EXACT
IDENTITY = Transformation.IDENTITY


class RuleContext:
    """Collects the edges and links the rules emit for one plan, and the relations still to
    visit (subqueries found in expressions)."""

    __slots__ = ("edges", "links", "pending", "functions")

    def __init__(self, functions=None):
        self.edges: list[Edge] = []
        self.links: list[Link] = []
        self.pending: list[Relation] = []
        # Function metadata (transformation and confidence per function name); the default
        # treats every function as a plain, exact expression over all of its arguments.
        self.functions = functions

    # --- emitting ------------------------------------------------------------------------

    def edge(self, source: str, target: str, relationship: Relationship, transformation: Transformation,
             confidence: Confidence, expr: Expr | None, rule: str, node: Relation,
             reason: str | None = None) -> None:
        self.edges.append(Edge(
            source, target, relationship, transformation, confidence,
            expr.id if expr is not None else None, rule, node.id,
            expr.origin if expr is not None and expr.origin is not None else node.origin, reason,
        ))

    def flow(self, source: Relation | str, target: str) -> None:
        self.links.append(Link(source if isinstance(source, str) else source.id, target))

    def flow_inputs(self, node: Relation) -> None:
        for child in node.inputs:
            self.links.append(Link(child.id, node.id))

    def values(self, expr: Expr, target: str, rule: str, node: Relation) -> None:
        """Value edges from every input whose value flows into ``expr``, to ``target``; the
        relation-level dependencies of subqueries in it flow into ``target`` too."""
        for field, transformation, confidence, reason in value_inputs(expr, self.functions):
            self.edge(field, target, Relationship.VALUE, transformation, confidence, expr, rule, node, reason)
        self.subqueries(expr, target)

    def reads(self, expr: Expr, target: str, relationship: Relationship, transformation: Transformation,
              rule: str, node: Relation) -> None:
        """Edges of one indirect kind from every field ``expr`` reads, to ``target``."""
        for field, confidence, reason in read_fields(expr):
            self.edge(field, target, relationship, transformation, confidence, expr, rule, node, reason)
        self.subqueries(expr, target)

    def subqueries(self, expr: Expr, target: str) -> None:
        for node in _iter(expr):
            if isinstance(node, Subquery):
                self.pending.append(node.relation)
                self.links.append(Link(node.relation.id, target))


def _iter(expr: Expr):
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(children(node))


def value_inputs(expr: Expr, functions=None):
    """``(field, transformation, confidence, reason)`` for each field whose value flows into
    ``expr``.  A bare reference is identity; anything computed is at least an expression."""
    out: list[tuple[str, Transformation, Confidence, str | None]] = []
    stack: list[tuple[Expr, Transformation]] = [(expr, IDENTITY)]
    while stack:
        node, transformation = stack.pop()
        if isinstance(node, (FieldRef, OuterRef)):
            out.append((node.field, transformation, EXACT, None))
        elif isinstance(node, Call):
            kind, confidence, reason, value_args = _classify(node, functions)
            step = strongest(transformation, kind)
            if confidence is not EXACT:
                for field, _, _, _ in value_inputs_of_args(node.args, step, functions):
                    out.append((field, step, confidence, reason))
                continue
            args = node.args if value_args is None else [a for i, a in enumerate(node.args) if i in value_args]
            stack.extend((arg, step) for arg in args)
        elif isinstance(node, AggregateCall):
            step = strongest(transformation, Transformation.AGGREGATE)
            stack.extend((arg, step) for arg in node.args)
        elif isinstance(node, WindowCall):
            # The window function's own inputs: ``SUM(x) OVER (…)`` is a window, not an aggregate.
            step = strongest(transformation, Transformation.WINDOW)
            stack.extend((arg, step) for arg in getattr(node.function, "args", ()))
        elif isinstance(node, Subquery):
            if node.kind is SubqueryKind.SCALAR:
                out.append((node.relation.fields[0].id, transformation, EXACT, None))
            elif node.kind is not SubqueryKind.EXISTS:
                step = strongest(transformation, Transformation.EXPRESSION)
                if node.needle is not None:
                    stack.append((node.needle, step))
                # ``(a, b) IN (SELECT x, y …)`` compares every column of the subquery.
                out.extend((f.id, step, EXACT, None) for f in node.relation.fields)
        elif isinstance(node, CandidateRef):
            for field in node.fields:
                out.append((field, transformation, Confidence.CONSERVATIVE, node.reason))
        elif not isinstance(node, Literal):
            stack.extend((child, strongest(transformation, Transformation.EXPRESSION)) for child in children(node))
    return out


def value_inputs_of_args(args, transformation, functions):
    out = []
    for arg in args:
        for field, inner, confidence, reason in value_inputs(arg, functions):
            out.append((field, strongest(transformation, inner), confidence, reason))
    return out


def read_fields(expr: Expr):
    """``(field, confidence, reason)`` for every field ``expr`` reads, in any role: what an
    indirect dependency (control, join, grouping, sort, window) depends on."""
    out: list[tuple[str, Confidence, str | None]] = []
    for node in _iter(expr):
        if isinstance(node, (FieldRef, OuterRef)):
            out.append((node.field, EXACT, None))
        elif isinstance(node, CandidateRef):
            out.extend((field, Confidence.CONSERVATIVE, node.reason) for field in node.fields)
        elif isinstance(node, Subquery) and node.kind is not SubqueryKind.EXISTS:
            out.extend((f.id, EXACT, None) for f in node.relation.fields)
    return out


def _classify(call: Call, functions):
    """(transformation, confidence, reason, value argument positions or None for all)."""
    if functions is None:
        return Transformation.EXPRESSION, EXACT, None, None
    return functions.classify(call)
