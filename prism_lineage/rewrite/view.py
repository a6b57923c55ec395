"""``prism-lineage graph --rewritten``: the rewritten plan and its plan-level edges, and for
every target a rewrite made or merged, the authored targets it stands for with their origins.

Targets that keep an authored id keep its origin, so the plan lines already show where they
were written; the ``authored:`` section lists the others (a filter split off and pushed, the
semi join of a decorrelated ``EXISTS``, a projection that absorbed another, a CTE copy).
"""

from __future__ import annotations

import sys

from ..functions import FunctionRegistry
from ..lineage.graph import LineageGraph, Target
from ..lineage.graph_format import (
    GraphModel,
    StatementGraphModel,
    TargetModel,
    graph_model,
    render_dot,
    render_graph_text,
)
from .pipeline import RewrittenStatement, rewrite_statement
from .provenance import plan_targets


class RewrittenTargetModel(TargetModel):
    """A target of the rewritten plan and the authored targets it stands for (itself, if it
    kept its authored id and stands for nothing else)."""

    authored: list[TargetModel]


class RewrittenStatementGraphModel(StatementGraphModel):
    rewrites: list[str]
    targets: list[RewrittenTargetModel]


class RewrittenGraphModel(GraphModel):
    statements: list[RewrittenStatementGraphModel]


def rewrite_graphs(graphs: list[LineageGraph], functions: FunctionRegistry
                   ) -> list[tuple[RewrittenStatement, LineageGraph]]:
    """Each graph's statement rewritten, with the lineage graph of the rewritten plan."""
    out = []
    for graph in graphs:
        result = rewrite_statement(graph.statement, functions)
        out.append((result, LineageGraph.of(result.rewritten, functions)))
    return out


def show_rewritten(graphs: list[LineageGraph], functions: FunctionRegistry, output_format: str) -> int:
    """Write the rewritten plans of ``graphs`` in ``output_format`` (text, json or dot)."""
    pairs = rewrite_graphs(graphs, functions)
    if output_format == "json":
        sys.stdout.write(rewritten_graph_model(pairs).model_dump_json(indent=2) + "\n")
    elif output_format == "dot":
        sys.stdout.write(render_dot([graph for _, graph in pairs]))
    else:
        sys.stdout.write(render_rewritten_text(pairs))
    return 0


def render_rewritten_text(pairs: list[tuple[RewrittenStatement, LineageGraph]]) -> str:
    out: list[str] = []
    for result, graph in pairs:
        head, _, body = render_graph_text([graph]).partition("\n")
        out.append(head)
        out.append(f"rewrites: {', '.join(dict.fromkeys(result.fired)) or 'none applied'}")
        out.append(body.rstrip("\n"))
        if result.rewritten.root is not None:
            out.extend(_authored_lines(result, graph))
        out.append("")
    return "\n".join(out) + "\n"


def _authored_lines(result: RewrittenStatement, graph: LineageGraph) -> list[str]:
    lines = []
    shown: set[str] = set()
    for target, authored in plan_targets(result.rewritten.root):
        if target in shown or authored == (target,):
            continue
        shown.add(target)
        label = graph.targets[target].label if target in graph.targets else target
        stands_for = "; ".join(_describe(t) for t in result.authored_targets(target))
        lines.append(f"  {label} [{target}] ← {stands_for}")
    if not lines:
        return ["authored: every target is an authored one (same id, same origin)"]
    return ["authored (what each rewritten target stands for, where it was written):"] + lines


def _describe(target: Target) -> str:
    where = f" @ {target.origin.render()}" if target.origin is not None else ""
    return f"{target.label} [{target.id}]{where}"


def rewritten_graph_model(pairs: list[tuple[RewrittenStatement, LineageGraph]]) -> RewrittenGraphModel:
    statements = []
    for result, graph in pairs:
        base = graph_model([graph]).statements[0].model_dump()
        authored = {t.id: t for t in graph_model([LineageGraph(result.authored, [], [])]).statements[0].targets}
        standing = dict(plan_targets(result.rewritten.root)) if result.rewritten.root is not None else {}
        targets = [
            RewrittenTargetModel(**target, authored=[authored[i] for i in standing.get(target["id"], ())])
            for target in base.pop("targets")
        ]
        statements.append(RewrittenStatementGraphModel(**base, targets=targets,
                                                       rewrites=list(dict.fromkeys(result.fired))))
    return RewrittenGraphModel(statements=statements)
