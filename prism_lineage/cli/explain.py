"""``prism-lineage explain``: where every output field of a query comes from."""

from __future__ import annotations

import sys

from ..explain import explain as run_explain
from ..explain import explain_statements
from ..explain.text import render_text
from .inputs import add_sql_arguments, read_catalog, read_functions, read_sql
from .substrait_input import add_substrait_argument, substrait_statements


def register(commands) -> None:
    parser = commands.add_parser(
        "explain",
        help="for every output field, the base columns it depends on and how",
        description="For every output field of every statement: the base columns it depends on, "
                    "with relationship kind, transformation kind and confidence.",
    )
    add_sql_arguments(parser)
    add_substrait_argument(parser)
    parser.add_argument("--format", "-f", choices=("text", "json"), default="text", help="output format")
    parser.set_defaults(run=run)


def run(args) -> int:
    catalog = read_catalog(args.schema)
    functions = read_functions(args.functions)
    statements = substrait_statements(args, catalog)
    if statements is not None:
        explanation = explain_statements(statements, functions)
    else:
        text, file = read_sql(args.file)
        explanation = run_explain(text, catalog, args.dialect, file=file, functions=functions)
    if args.format == "json":
        sys.stdout.write(explanation.to_json() + "\n")
    else:
        sys.stdout.write(render_text(explanation))
    return 0
