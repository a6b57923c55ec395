"""Renderings of plan-level lineage graphs: JSON (pydantic), text (explain plan) and DOT."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from ..ir import Relation
from ..ir.walk import expressions_of, subqueries_of
from ..terminal import printable
from .graph import LineageGraph, Target
from .paths import UNKNOWN_PART


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class OriginModel(_Frozen):
    line: int
    column: int
    end_line: int
    end_column: int
    statement: int | None = None
    file: str | None = None


class TargetModel(_Frozen):
    id: str
    kind: str
    label: str
    type: str | None = None
    origin: OriginModel | None = None
    parent: str | None = None


class EdgeModel(_Frozen):
    source: str
    target: str
    relationship: str
    transformation: str
    confidence: str
    expression: str | None = None
    evidence: dict
    reason: str | None = None
    path: str | None = None  # the part of the source read (specs/nested.md)


class LinkModel(_Frozen):
    source: str
    target: str
    kind: str


class StatementGraphModel(_Frozen):
    index: int
    kind: str
    root: str | None
    targets: list[TargetModel]
    edges: list[EdgeModel]
    links: list[LinkModel]


class GraphModel(_Frozen):
    statements: list[StatementGraphModel]


def _origin(origin) -> OriginModel | None:
    if origin is None:
        return None
    return OriginModel(line=origin.line, column=origin.column, end_line=origin.end_line,
                       end_column=origin.end_column, statement=origin.statement, file=origin.file)


def graph_model(graphs: list[LineageGraph]) -> GraphModel:
    statements = []
    for graph in graphs:
        targets = [
            TargetModel(id=t.id, kind=t.kind, label=t.label, type=t.type, origin=_origin(t.origin), parent=t.parent)
            for t in graph.targets.values()
        ]
        edges = [
            EdgeModel(
                source=e.source, target=e.target, relationship=e.relationship.value,
                transformation=e.transformation.value, confidence=e.confidence.value, expression=e.expression,
                evidence={"rule": e.rule, "node": e.node, "origin": _origin(e.origin).model_dump() if e.origin else None},
                reason=e.reason, path=_shown_path(e.path),
            )
            for e in graph.edges
        ]
        links = [LinkModel(source=link.source, target=link.target, kind=link.kind) for link in graph.links]
        root = graph.statement.root
        statements.append(StatementGraphModel(
            index=graph.statement.index, kind=graph.statement.kind, root=root.id if root else None,
            targets=targets, edges=edges, links=links,
        ))
    return GraphModel(statements=statements)


def _describe(target: Target | None, fallback: str) -> str:
    """A target as text output shows it (user-supplied names made printable)."""
    if target is None:
        return printable(fallback)
    if target.kind == "column":
        return printable(target.label)
    return f"{printable(target.label)} [{printable(target.id)}]"


def render_graph_text(graphs: list[LineageGraph]) -> str:
    lines: list[str] = []
    for graph in graphs:
        statement = graph.statement
        lines.append(f"statement {statement.index + 1}: {statement.kind}")
        if statement.root is None:
            for item in statement.uncertain:
                lines.append(f"  uncertain: {printable(item.reason)}")
            continue
        lines.append("plan:")
        _plan_lines(statement.root, 1, lines, set())
        targets = graph.targets
        lines.append("edges:")
        for edge in graph.edges:
            where = f" at {printable(edge.origin.render())}" if edge.origin else ""
            reason = f" ({printable(edge.reason)})" if edge.reason else ""
            path = f" path={printable(_shown_path(edge.path))}" if edge.path else ""
            lines.append(
                f"  {_describe(targets.get(edge.source), edge.source)} → {_describe(targets.get(edge.target), edge.target)}"
                f"  {edge.relationship.value}/{edge.transformation.value}/{edge.confidence.value}"
                f"  rule={edge.rule}{where}{path}{reason}"
            )
        if statement.ingress:
            lines.append("ingress (provenance from the client plan, not lineage):")
            for origin in statement.ingress:
                lines.append(f"  {targets[origin.id].label} → {_ingress_targets(origin.targets, targets)}")
        lines.append("")
    return "\n".join(lines) + "\n"


def _ingress_targets(ids: tuple[str, ...], targets: dict[str, Target]) -> str:
    """The relations an ingress node produced, by name, and how many fields and expressions."""
    kinds = [targets[i].kind if i in targets else "expression" for i in ids]
    relations = [_describe(targets.get(i), i) for i, kind in zip(ids, kinds) if kind == "relation"]
    rest = [f"{kinds.count(kind)} {kind}s" for kind in ("field", "expression") if kind in kinds]
    return ", ".join(relations + rest) or "nothing"


def _plan_lines(relation: Relation, depth: int, lines: list[str], shown: set[str]) -> None:
    indent = "  " * depth
    origin = f" @ {printable(relation.origin.render())}" if relation.origin else ""
    label = type(relation).__name__
    detail = printable(_operator_detail(relation))
    if relation.id in shown:
        lines.append(f"{indent}{label}{detail} [{printable(relation.id)}] (shown above)")
        return
    shown.add(relation.id)
    lines.append(f"{indent}{label}{detail} [{printable(relation.id)}]{origin}")
    created = getattr(relation, "columns", None)
    if created:
        names = ", ".join(printable(f.name) for f in created)
        lines.append(f"{indent}  fields: {names}")
    for expr in expressions_of(relation):
        for sub in subqueries_of(expr):
            lines.append(f"{indent}  subquery ({sub.kind.value}):")
            _plan_lines(sub.relation, depth + 2, lines, shown)
    for child in relation.inputs:
        _plan_lines(child, depth + 1, lines, shown)


def _operator_detail(relation: Relation) -> str:
    parts = []
    for attribute in ("table", "name", "function", "target", "kind", "clause"):
        value = getattr(relation, attribute, None)
        if value is not None and not (attribute == "clause" and value == "where"):
            parts.append(getattr(value, "value", value))
    if getattr(relation, "all", False):
        parts.append("all")
    return f"({', '.join(str(p) for p in parts)})" if parts else ""


_COLORS = {
    "value": "black", "control": "red", "grouping": "blue", "join": "darkgreen", "sort": "orange",
    "window": "purple", "policy": "brown", "quality": "gray40",
}


def render_dot(graphs: list[LineageGraph]) -> str:
    out = ["digraph lineage {", "  rankdir=LR;", "  node [fontname=Helvetica, fontsize=10];"]
    for graph in graphs:
        out.append(f"  subgraph cluster_{graph.statement.index} {{")
        out.append(f'    label="statement {graph.statement.index + 1}";')
        for target in graph.targets.values():
            if target.kind == "expression":
                continue
            shape = {"column": "cylinder", "relation": "box", "field": "ellipse", "ingress": "note"}.get(
                target.kind, "ellipse")
            out.append(f'    "{_escape(target.id)}" [label="{_escape(target.label)}", shape={shape}];')
        for edge in graph.edges:
            color = _COLORS.get(edge.relationship.value, "black")
            style = "dashed" if edge.confidence.value != "exact" else "solid"
            out.append(
                f'    "{_escape(edge.source)}" -> "{_escape(edge.target)}" '
                f'[label="{edge.relationship.value}/{edge.transformation.value}", color={color}, style={style}];'
            )
        shown = {t.id for t in graph.targets.values() if t.kind != "expression"}
        for link in graph.links:
            if link.kind == "ingress" and link.target not in shown:
                continue  # expressions are not drawn
            out.append(f'    "{_escape(link.source)}" -> "{_escape(link.target)}" [style=dotted, color=gray60, arrowhead=empty];')
        out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"


def _shown_path(path: str | None) -> str | None:
    """An edge's path as people read it: a part not known (``UNKNOWN_PART``) is ``?``."""
    return path.replace(UNKNOWN_PART, "?") if path else path


def _escape(text: str) -> str:
    return printable(text).replace("\\", "\\\\").replace('"', '\\"')
