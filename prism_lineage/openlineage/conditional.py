"""Which value sources of an output field reach it through the condition of a CASE or IF:
OpenLineage's INDIRECT/CONDITIONAL (specs/openlineage.md, "CONDITIONAL").

The lineage rules follow the RFC: every input of an expression flows into its value, so a CASE
condition is a value source like the branches (``value``/``expression``).  The answer alone
cannot tell them apart, but each plan-level value edge names the expression it was read from;
the export looks at where the edge's source is referenced in that expression and follows the
value edges from each output field back to the base columns:

* a reference is *in a condition* when one of its enclosing expressions is the condition of an
  ``if`` call (its first argument: SQL's IF/IIF and the WHEN clauses of a CASE) or the first
  argument of a ``case`` call that is not itself an ``if`` (a simple CASE's operand; the first
  condition of the flat CASE layouts that Substrait, Spark and Polars plans lower to — every
  frontend puts a condition or the operand first);
* a path from a base column to the field is conditional when one of its hops is (the column
  decides which branch gives the value), a value path otherwise;
* a column all of whose paths are conditional is CONDITIONAL only; one with both kinds is both
  a value (DIRECT) and CONDITIONAL.

Where this cannot be told, nothing is claimed and the source stays a value, as the RFC reads it:
an edge that names no expression, an expression not found in the plan, a source not referenced
in it, a later condition of a flat CASE layout (its position does not say it is one), and any
statement whose value edges form a cycle (a recursive CTE).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from ..ir import Call, CandidateRef, Expr, FieldRef, OuterRef, Statement, Subquery
from ..ir.expressions import children
from ..ir.walk import expressions_of, walk_relations
from ..lineage.edges import Edge, column_name
from ..lineage.kinds import Relationship

VALUE = "value"
CONDITION = "condition"


@dataclass(frozen=True, slots=True)
class ConditionalSource:
    """A base column (as the answer names it) that feeds a field through a condition; ``only``:
    through conditions only (else it is also a value source)."""

    column: str
    only: bool


class _Cycle(Exception):
    pass


def conditional_sources(statement: Statement, edges: list[Edge]) -> list[tuple[ConditionalSource, ...]]:
    """For each output field of ``statement``'s answer (in the answer's order): its value
    sources that reach it through a CASE/IF condition, by column.  ``edges``: the statement's
    plan-level lineage edges (``LineageGraph.of(statement, functions).edges``)."""
    root = statement.root
    if root is None:
        return []
    if statement.writes is not None:
        outputs = [w.field for w in statement.writes]
    else:
        outputs = [f.id for f in root.fields]
    value_in: dict[str, list[Edge]] = defaultdict(list)
    for edge in edges:
        if edge.relationship is Relationship.VALUE:
            value_in[edge.target].append(edge)
    walker = _Paths(value_in, _expressions(statement))
    try:
        found = [walker.kinds(target) for target in outputs]
    except _Cycle:
        return [() for _ in outputs]
    out = []
    for kinds in found:
        out.append(tuple(ConditionalSource(column_name(column), kind == {CONDITION})
                         for column, kind in sorted(kinds.items()) if CONDITION in kind))
    return out


def _expressions(statement: Statement) -> dict[str, Expr]:
    """Every expression of the plan (and each part of one) by id."""
    found: dict[str, Expr] = {}
    for relation in walk_relations(statement.root):
        for top in expressions_of(relation):
            stack = [top]
            while stack:
                node = stack.pop()
                identifier = getattr(node, "id", None)
                if identifier is not None:
                    found.setdefault(identifier, node)
                stack.extend(children(node))
    return found


class _Paths:
    def __init__(self, value_in: dict[str, list[Edge]], expressions: dict[str, Expr]):
        self.value_in = value_in
        self.expressions = expressions
        self.memo: dict[str, dict[str, frozenset[str]]] = {}
        self.active: set[str] = set()
        self.roles_memo: dict[tuple[str, str | None], frozenset[str]] = {}

    def kinds(self, target: str) -> dict[str, frozenset[str]]:
        """Base column target → the kinds of the value paths from it to ``target``."""
        if target.startswith("column:"):
            return {target: frozenset((VALUE,))}
        found = self.memo.get(target)
        if found is not None:
            return found
        if target in self.active:
            raise _Cycle()
        self.active.add(target)
        result: dict[str, set[str]] = {}
        for edge in self.value_in.get(target, ()):
            roles = self.roles(edge)
            for column, kinds in self.kinds(edge.source).items():
                into = result.setdefault(column, set())
                if CONDITION in roles:
                    into.add(CONDITION)
                if VALUE in roles:
                    into.update(kinds)
        self.active.discard(target)
        frozen = {column: frozenset(kinds) for column, kinds in result.items()}
        self.memo[target] = frozen
        return frozen

    def roles(self, edge: Edge) -> frozenset[str]:
        """How the edge's expression uses its source: in a condition, as a value, or both."""
        key = (edge.source, edge.expression)
        found = self.roles_memo.get(key)
        if found is None:
            expression = self.expressions.get(edge.expression) if edge.expression is not None else None
            uses = frozenset(_uses(expression, edge.source)) if expression is not None else frozenset()
            found = uses or frozenset((VALUE,))  # not found where it is used: a value, as the RFC reads it
            self.roles_memo[key] = found
        return found


def _uses(expression: Expr, source: str) -> Iterator[str]:
    """CONDITION or VALUE for each reference to field ``source`` in ``expression``."""
    stack: list[tuple[Expr, bool]] = [(expression, False)]
    while stack:
        node, in_condition = stack.pop()
        if _references(node, source):
            yield CONDITION if in_condition else VALUE
        parts = children(node)
        if isinstance(node, Call) and parts:
            conditions = _condition_positions(node)
            stack.extend((part, in_condition or position in conditions) for position, part in enumerate(parts))
        else:
            stack.extend((part, in_condition) for part in parts)


def _references(node: Expr, source: str) -> bool:
    if isinstance(node, (FieldRef, OuterRef)):
        return node.field == source
    if isinstance(node, CandidateRef):
        return source in node.fields
    if isinstance(node, Subquery):
        return any(field.id == source for field in node.relation.fields)
    return False


def _condition_positions(call: Call) -> frozenset[int]:
    if call.function == "if" and len(call.args) >= 2:
        return frozenset((0,))
    if call.function == "case" and call.args:
        first = call.args[0]
        if not (isinstance(first, Call) and first.function == "if"):
            return frozenset((0,))
    return frozenset()
