"""What rules share: where edges go, and how an expression's inputs are read."""

from __future__ import annotations

from ...ir import Call, Expr, FieldRef, Literal, Relation, Subquery
from ...ir.expressions import children
from ..edges import Edge, EdgeFields, Link
from ..expression_inputs import inputs as _inputs, read_fields as _read_fields, value_inputs as _value_inputs
from ..kinds import Confidence, Relationship, Transformation

EXACT = Confidence.EXACT
IDENTITY = Transformation.IDENTITY
_VALUE = Relationship.VALUE
_CONTROL = Relationship.CONTROL
_SORT = Relationship.SORT
_EXPRESSION = Transformation.EXPRESSION
_fields = tuple.__new__  # EdgeFields(...) without its Python-level __new__


class RuleContext:
    """Collects the edges and links the rules emit for one plan, and the relations still to
    visit (subqueries found in expressions)."""

    __slots__ = ("records", "links", "pending", "functions", "ordering", "look_below")

    def __init__(self, functions=None, ordering: frozenset[str] = frozenset()):
        # The edges emitted, as tuples of their fields (``edges`` makes the ``Edge`` objects).
        self.records: list[EdgeFields] = []
        self.links: list[Link] = []
        self.pending: list[Relation] = []
        # Function metadata (transformation and confidence per function name); the default
        # treats every function as a plain, exact expression over all of its arguments.
        self.functions = functions
        # The ids of the Sort operators whose order the statement's result shows
        # (``Statement.ordering``): only their keys give sort lineage.
        self.ordering = ordering
        # False: the plan holds no ``Subquery`` (its builder knows), so ``subqueries`` finds none
        # without walking every expression.
        self.look_below = True

    @property
    def edges(self) -> list[Edge]:
        """The edges emitted so far."""
        return [Edge(*fields) for fields in self.records]

    # --- emitting ------------------------------------------------------------------------

    def edge(self, source: str, target: str, relationship: Relationship, transformation: Transformation,
             confidence: Confidence, expr: Expr | None, rule: str, node: Relation,
             reason: str | None = None, path: str | None = None) -> None:
        self.records.append(_fields(EdgeFields, (
            source, target, relationship, transformation, confidence,
            expr.id if expr is not None else None, rule, node.id,
            expr.origin if expr is not None and expr.origin is not None else node.origin, reason, path,
        )))

    def flow(self, source: Relation | str, target: str, kind: str = "flow") -> None:
        self.links.append(Link(source if isinstance(source, str) else source.id, target, kind))

    def flow_inputs(self, node: Relation) -> None:
        for child in node.inputs:
            self.links.append(Link(child.id, node.id))

    def values(self, expr: Expr, target: str, rule: str, node: Relation) -> None:
        """Value edges from every input whose value flows into ``expr``, to ``target``; the
        relation-level dependencies of subqueries in it flow into ``target`` too."""
        # What ``edge`` would build, with the fields every edge of ``expr`` shares worked out
        # once (this runs for every expression of the plan).
        expr_id, node_id = expr.id, node.id
        origin = expr.origin if expr.origin is not None else node.origin
        append = self.records.append
        if type(expr) is FieldRef:
            # Most expressions are a column read as is: its one input (``inputs`` gives exactly
            # this), and no subquery.
            append(_fields(EdgeFields, (expr.field, target, _VALUE, IDENTITY, EXACT, expr_id, rule, node_id,
                                        origin, None, None)))
            return
        values, controls = _inputs(expr, self.functions)
        for field, transformation, confidence, reason, path in values:
            append(_fields(EdgeFields, (field, target, _VALUE, transformation, confidence, expr_id, rule, node_id,
                                        origin, reason, path)))
        # Arguments that only decide how a function computes its value (a unit, a format).
        for field, _, confidence, reason, path in controls:
            append(_fields(EdgeFields, (field, target, _CONTROL, _EXPRESSION, confidence, expr_id, rule, node_id,
                                        origin, reason, path)))
        if self.look_below:  # (a column read, returned above, holds no subquery)
            self.subqueries(expr, target)

    def reads(self, expr: Expr, target: str, relationship: Relationship, transformation: Transformation,
              rule: str, node: Relation) -> None:
        """Edges of one indirect kind from every field ``expr`` reads, to ``target``."""
        expr_id, node_id = expr.id, node.id
        origin = expr.origin if expr.origin is not None else node.origin
        append = self.records.append
        if type(expr) is FieldRef:  # a column read as is: its one read (``read_fields`` gives exactly this)
            append(_fields(EdgeFields, (expr.field, target, relationship, transformation, EXACT, expr_id, rule,
                                        node_id, origin, None, None)))
            return
        for field, _, confidence, reason, path in _read_fields(expr, self.functions):
            append(_fields(EdgeFields, (field, target, relationship, transformation, confidence, expr_id, rule,
                                        node_id, origin, reason, path)))
        if self.look_below:  # (a column read, returned above, holds no subquery)
            self.subqueries(expr, target)

    def orders(self, expr: Expr, target: str, rule: str, node: Relation) -> None:
        """Sort edges from every field an ordering key reads, each with the key's own
        transformation: ``ORDER BY amount`` is identity, ``ORDER BY SUM(amount)`` aggregate,
        ``ORDER BY a + b`` expression (the same as ordering by a field computed so)."""
        values, controls = _inputs(expr, self.functions)
        for i in values:
            self.edge(i.field, target, _SORT, i.transformation, i.confidence, expr, rule, node, i.reason, i.path)
        for i in controls:
            self.edge(i.field, target, _SORT, _EXPRESSION, i.confidence, expr, rule, node, i.reason, i.path)
        self.subqueries(expr, target)

    def subqueries(self, expr: Expr, target: str) -> None:
        if type(expr) is FieldRef or not self.look_below:
            return
        # Every node of the expression, parents first (a loop, not a generator: this runs over
        # every expression of the plan); leaves hold no subquery.
        stack = [expr]
        push = stack.append
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind is Call:  # the commonest: its arguments, without the leaves (they hold nothing)
                for arg in node.args:
                    if type(arg) is not FieldRef and type(arg) is not Literal:
                        push(arg)
                continue
            if kind is FieldRef or kind is Literal:
                continue
            if isinstance(node, Subquery):
                self.pending.append(node.relation)
                self.links.append(Link(node.relation.id, target))
            stack.extend(children(node))


def value_inputs(expr: Expr, functions=None):
    """``(field, transformation, confidence, reason)`` for each field whose value flows into
    ``expr`` (``expression_inputs.value_inputs`` also gives the nested path read)."""
    return [(i.field, i.transformation, i.confidence, i.reason) for i in _value_inputs(expr, functions)]


def read_fields(expr: Expr):
    """``(field, confidence, reason)`` for every field ``expr`` reads, in any role: what an
    indirect dependency (control, join, grouping, sort, window) depends on."""
    return [(i.field, i.confidence, i.reason) for i in _read_fields(expr)]
