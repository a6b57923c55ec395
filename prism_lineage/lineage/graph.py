"""The plan-level lineage graph of a statement: targets, edges and structural links."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from ..ir import (
    Field,
    Modify,
    Origin,
    Relation,
    Statement,
    ordered_by,
    walk_relations,
)
from ..ir.expressions import Expr, iter_tree
from ..ir.walk import expressions_of
from .edges import ROW_LINKS, Edge, EdgeFields, Link, column_name
from .resolve import EndToEnd
from .rules import RuleContext, plan_edges

if TYPE_CHECKING:
    import networkx

    from .through import Known, ScriptSummaries


@dataclass(frozen=True, slots=True)
class Target:
    """A semantic target as the graph shows it."""

    id: str
    kind: str  # column, relation, field, expression, rows (which rows a Modify changes)
    label: str  # operator name, field name, column name, function …
    type: str | None = None
    origin: Origin | None = None
    parent: str | None = None  # the relation that creates a field


def result_ordering(statement: Statement) -> frozenset[str]:
    """The Sort operators whose order the statement's result shows: as the frontend said, or
    the order the root's rows are in."""
    if statement.ordering is not None:
        return frozenset(statement.ordering)
    order = ordered_by(statement.root) if statement.root is not None else None
    return frozenset((order.id,)) if order is not None else frozenset()


class LineageGraph:
    """Plan-level lineage of one statement (rules applied to every operator).

    Made with ``summaries`` (``explain`` through a script), the edges stop at the rows of the
    script's tables the statement reads, whose lineage was resolved once for every reader
    (lineage/through.py): the end-to-end answers are the same, the graph shows less.  Without
    (``lineage_graphs``, ``graph``), it holds the whole plan."""

    def __init__(self, statement: Statement, edges: list[Edge] | None, links: list[Link], *,
                 records: list[EdgeFields] | None = None, known: "Known | None" = None,
                 summaries: "ScriptSummaries | None" = None):
        """``edges``, or (``of``) the ``records`` of the edges' fields, made into ``Edge``
        objects the first time ``edges`` is asked for; ``known``: the answers of the script's
        rows the edges stop at (``summaries``)."""
        self.statement = statement
        self._edges = edges
        self._records = records if edges is None else None
        self.links = links
        self.known = known
        self.summaries = summaries

    @property
    def edges(self) -> list[Edge]:
        if self._edges is None:
            self._edges = [Edge(*fields) for fields in self._records or ()]
        return self._edges

    @edges.setter
    def edges(self, edges: list[Edge]) -> None:
        self._edges, self._records = edges, None

    @classmethod
    def of(cls, statement: Statement, functions=None, summaries: "ScriptSummaries | None" = None) -> "LineageGraph":
        known = None
        ordering = result_ordering(statement)
        if summaries is not None and statement.root is not None:
            ctx, known = summaries.plan(statement.root, ordering)
        else:
            ctx = RuleContext(functions, ordering)
            if statement.root is not None:
                plan_edges(statement.root, ctx)
        # Provenance from an external client plan: links, never lineage (EndToEnd follows
        # ``flow`` links only).
        ingress = [Link(origin.id, target, "ingress") for origin in statement.ingress for target in origin.targets]
        return cls(statement, None, ctx.links + ingress, records=ctx.records, known=known, summaries=summaries)

    @cached_property
    def end_to_end(self) -> EndToEnd:
        # The records while no ``Edge`` was made (they hold the same fields).
        return EndToEnd(self._edges if self._edges is not None else self._records or [], self.links, self.known)

    @cached_property
    def targets(self) -> dict[str, Target]:
        """Every target an edge or link touches, with its kind, label and origin."""
        out: dict[str, Target] = {}
        root = self.statement.root
        if root is not None:
            for relation in walk_relations(root):
                out[relation.id] = Target(relation.id, "relation", _operator_name(relation), None, relation.origin)
                if isinstance(relation, Modify):
                    out[relation.rows_id] = Target(relation.rows_id, "rows", "rows changed, removed or added",
                                                   None, relation.origin, relation.id)
                for field in _created_fields(relation):
                    out.setdefault(field.id, Target(field.id, "field", field.name, field.type, field.origin,
                                                    relation.id))
                for expr in expressions_of(relation):
                    for node in iter_tree(expr):
                        out.setdefault(node.id, Target(node.id, "expression", _expression_label(node),
                                                       node.type, node.origin))
        for edge in self.edges:
            if edge.source.startswith("column:"):
                out.setdefault(edge.source, Target(edge.source, "column", column_name(edge.source)))
        for ingress in self.statement.ingress:
            label = f"{ingress.kind} {ingress.path}" + (f" (anchor {ingress.anchor})" if ingress.anchor else "")
            out.setdefault(ingress.id, Target(ingress.id, "ingress", label))
        return out

    def to_networkx(self) -> "networkx.MultiDiGraph":
        """A networkx multigraph: nodes are targets, edges carry the lineage attributes
        (structural links carry ``link=flow`` and no relationship)."""
        import networkx as nx

        graph = nx.MultiDiGraph()
        for target in self.targets.values():
            graph.add_node(target.id, kind=target.kind, label=target.label, type=target.type,
                           origin=target.origin.render() if target.origin else None)
        for edge in self.edges:
            graph.add_edge(edge.source, edge.target, relationship=edge.relationship.value,
                           transformation=edge.transformation.value, confidence=edge.confidence.value,
                           expression=edge.expression, rule=edge.rule, node=edge.node, reason=edge.reason)
        for link in self.links:
            graph.add_edge(link.source, link.target, link=link.kind)
        return graph

    def upstream(self, target: str) -> set[str]:
        """Every target ``target`` depends on, through lineage edges and flow links."""
        import networkx as nx

        graph = self.to_networkx()
        provenance = [(u, v, k) for u, v, k, link in graph.edges(keys=True, data="link") if link is not None and link not in ROW_LINKS]
        graph.remove_edges_from(provenance)
        return nx.ancestors(graph, target)


def _operator_name(relation: Relation) -> str:
    name = type(relation).__name__
    detail = getattr(relation, "table", None) or getattr(relation, "name", None)
    kind = getattr(relation, "kind", None)
    if kind is not None and not isinstance(kind, str):
        detail = kind.value
    elif isinstance(kind, str):
        detail = kind
    clause = getattr(relation, "clause", None)
    if clause and clause != "where":
        detail = clause
    return f"{name}({detail})" if detail else name


def _created_fields(relation: Relation) -> tuple[Field, ...]:
    columns = getattr(relation, "columns", None)
    return columns if columns is not None else ()


def _expression_label(expr: Expr) -> str:
    for attribute in ("function", "field", "value", "kind"):
        value = getattr(expr, attribute, None)
        if value is not None:
            return f"{type(expr).__name__}({value})"
    return type(expr).__name__
