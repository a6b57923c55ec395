"""``prism-lineage graph``: the plan-level lineage edges, with targets and origins."""

from __future__ import annotations

import sys

from ..explain import lineage_graphs
from ..lineage.graph import LineageGraph
from ..lineage.graph_format import render_dot, render_graph_text, graph_model
from .frame_input import add_frame_argument, frame_plan
from .inputs import add_sql_arguments, no_statements, read_catalog, read_functions, read_sql
from .substrait_input import add_substrait_argument, check_sql_only_options, substrait_statements


def register(commands) -> None:
    parser = commands.add_parser(
        "graph",
        help="the plan-level lineage edges with their targets and origins (explain plan)",
        description="The plan of each statement, operator by operator, and every lineage edge the rules "
                    "emit, with the targets it joins and the origin in the SQL text that wrote it.",
    )
    add_sql_arguments(parser)
    add_substrait_argument(parser)
    add_frame_argument(parser)
    parser.add_argument("--format", "-f", "--output", "-o", dest="format", choices=("text", "json", "dot"), default="text", help="output format")
    parser.add_argument("--rewritten", action="store_true",
                        help="the plan after the rewrite pipeline (docs/rewrites.md), each rewritten target with the "
                             "authored targets and origins it stands for")
    parser.set_defaults(run=run)


def run(args) -> int:
    check_sql_only_options(args)
    catalog = read_catalog(args.schema, getattr(args, "strict", False))
    functions = read_functions(args.functions)
    statements = substrait_statements(args, catalog)
    plan = frame_plan(args)
    if statements is not None:
        graphs = [LineageGraph.of(statement, functions) for statement in statements]
    elif plan is not None:
        graphs = lineage_graphs(plan, functions=functions)
    else:
        text, file = read_sql(args.file)
        graphs = lineage_graphs(text, catalog, args.dialect, file=file, functions=functions,
                                through_script=args.through_script)
        if not graphs:
            raise no_statements(file)
    if args.rewritten:
        from ..explain import _with_plan_functions
        from ..rewrite.view import show_rewritten

        registry = (_with_plan_functions(functions, plan) if plan is not None else None) or functions
        return show_rewritten(graphs, registry, args.format)
    if args.format == "json":
        sys.stdout.write(graph_model(graphs).model_dump_json(indent=2) + "\n")
    elif args.format == "dot":
        sys.stdout.write(render_dot(graphs))
    else:
        sys.stdout.write(render_graph_text(graphs))
    return 0
