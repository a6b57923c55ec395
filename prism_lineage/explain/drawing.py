"""``explain --format dot|mermaid``: the column-level graph of an answer.

Input columns (the base columns the answer names) point at the output columns they feed: one
box per table read and one per statement's output (its target table, or ``statement N`` for a
query), one node per column.  An edge's colour and style say its relationship kind, its label
the transformation; a source that is not exact is dashed and says its confidence.  The rows an
UPDATE, DELETE or MERGE changes are one node of their own (``(rows changed)``).  The plan, with
operators and plan-level edges, stays under ``prism-lineage graph``.

Names come from user input: they are escaped for the format and passed through
``terminal.printable`` (a control character is shown as ``\\x1b``, never sent).
"""

from __future__ import annotations

import re

from ..terminal import printable
from .models import Explanation, SourceColumn, StatementAnswer

# One colour per relationship kind, the same as ``graph --format dot``.
COLORS = {
    "value": "black", "control": "red", "grouping": "blue", "join": "darkgreen", "sort": "orange",
    "window": "purple", "policy": "brown", "quality": "gray40",
}
# Mermaid takes CSS colours.
_CSS = {"darkgreen": "#006400", "gray40": "#666666"}
_ROWS = "(rows changed)"


def _source_label(source: SourceColumn) -> tuple[str, str]:
    """(table, column label) of a source: ``orders.items`` read at ``items[].sku`` is the
    column ``items[].sku`` of ``orders``."""
    table, _, column = source.column.rpartition(".")
    return table, source.path or column


def _output_table(statement: StatementAnswer) -> str:
    if statement.target:
        return f"statement {statement.index + 1}: {statement.kind} → {statement.target}"
    return f"statement {statement.index + 1}: {statement.kind}"


class _Graph:
    """Nodes by (cluster, label), clusters in first-seen order, and edges."""

    def __init__(self) -> None:
        self.clusters: dict[str, dict[str, str]] = {}  # cluster → label → node id
        self.edges: list[tuple[str, str, SourceColumn]] = []

    def node(self, cluster: str, label: str) -> str:
        nodes = self.clusters.setdefault(cluster, {})
        found = nodes.get(label)
        if found is None:
            found = f"n{sum(len(n) for n in self.clusters.values())}"
            nodes[label] = found
        return found


def _graph(explanation: Explanation) -> _Graph:
    graph = _Graph()
    outputs: list[tuple[str, StatementAnswer]] = []
    for statement in explanation.statements:  # inputs first: they read left to right
        for source in [s for f in statement.fields for s in f.sources] + list(statement.rows or []):
            graph.node(*_source_label(source))
        outputs.append((_output_table(statement), statement))
    for cluster, statement in outputs:
        for field in statement.fields:
            target = graph.node(cluster, field.name)
            for source in field.sources:
                graph.edges.append((graph.node(*_source_label(source)), target, source))
        if statement.rows:
            target = graph.node(cluster, _ROWS)
            for source in statement.rows:
                graph.edges.append((graph.node(*_source_label(source)), target, source))
    return graph


def _edge_label(source: SourceColumn) -> str:
    label = source.transformation
    if source.relationship != "value":
        label = f"{source.relationship}: {label}"
    if source.confidence != "exact":
        label += f" ({source.confidence})"
    return label


# --- Graphviz ---------------------------------------------------------------------------------


def _dot(text: str) -> str:
    return printable(text).replace("\\", "\\\\").replace('"', '\\"')


def render_dot(explanation: Explanation) -> str:
    graph = _graph(explanation)
    out = ["digraph column_lineage {", "  rankdir=LR;", "  graph [fontname=Helvetica, fontsize=11];",
           "  node [fontname=Helvetica, fontsize=10, shape=box, "
           "style=rounded];", "  edge [fontname=Helvetica, fontsize=9];"]
    for number, (cluster, nodes) in enumerate(graph.clusters.items()):
        out.append(f"  subgraph cluster_{number} {{")
        out.append(f'    label="{_dot(cluster)}"; style=filled; fillcolor=gray95; color=gray70;')
        for label, node in nodes.items():
            out.append(f'    {node} [label="{_dot(label)}"];')
        out.append("  }")
    for source_node, target_node, source in graph.edges:
        color = COLORS.get(source.relationship, "black")
        style = "solid" if source.confidence == "exact" else "dashed"
        out.append(f'  {source_node} -> {target_node} [label="{_dot(_edge_label(source))}", color={color}, '
                   f'fontcolor={color}, style={style}];')
    out.append("}")
    return "\n".join(out) + "\n"


# --- Mermaid ----------------------------------------------------------------------------------

_MERMAID_UNSAFE = re.compile(r'["<>#;`{}|\[\]()]')


def _mermaid(text: str) -> str:
    """Text inside a quoted Mermaid label: characters Mermaid reads as syntax become entity codes."""
    return _MERMAID_UNSAFE.sub(lambda m: f"#{ord(m.group())};", printable(text))


def render_mermaid(explanation: Explanation) -> str:
    graph = _graph(explanation)
    out = ["flowchart LR"]
    for number, (cluster, nodes) in enumerate(graph.clusters.items()):
        out.append(f'  subgraph c{number}["{_mermaid(cluster)}"]')
        for label, node in nodes.items():
            out.append(f'    {node}["{_mermaid(label)}"]')
        out.append("  end")
    styles = []
    for number, (source_node, target_node, source) in enumerate(graph.edges):
        arrow = "-->" if source.confidence == "exact" else "-.->"
        out.append(f'  {source_node} {arrow}|"{_mermaid(_edge_label(source))}"| {target_node}')
        color = COLORS.get(source.relationship, "black")
        styles.append(f"  linkStyle {number} stroke:{_CSS.get(color, color)},color:{_CSS.get(color, color)}")
    return "\n".join(out + styles) + "\n"
