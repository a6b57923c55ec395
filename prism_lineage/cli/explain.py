"""``prism-lineage explain``: where every output field of a query comes from."""

from __future__ import annotations

import argparse
import os
import sys

from ..errors import UsageError
from ..explain import explain as run_explain
from ..explain import explain_statements
from ..explain.asking import mark_case_sensitive, relationship_kinds
from ..explain.drawing import render_dot, render_mermaid
from ..explain.text import render_text
from .frame_input import add_frame_argument, frame_plan
from .inputs import add_sql_arguments, no_statements, read_catalog, read_functions, read_sql
from .openlineage_format import add_openlineage_arguments
from .substrait_input import add_substrait_argument, check_sql_only_options, substrait_statements


def register(commands) -> None:
    parser = commands.add_parser(
        "explain",
        help="for every output field, the base columns it depends on and how",
        description="For every output field of every statement: the base columns it depends on, "
                    "with relationship kind, transformation kind and confidence.",
    )
    add_sql_arguments(parser)
    add_substrait_argument(parser)
    add_frame_argument(parser)
    parser.add_argument("--format", "-f", "--output", "-o", dest="format", choices=("text", "json", "dot", "mermaid", "openlineage"), default="text",
                        help="output format (dot, mermaid: the column-level graph, input columns to output "
                             "columns; openlineage: one OpenLineage JobEvent per statement, JSON lines)")
    parser.add_argument("--column", "-c", action="append", metavar="NAME", dest="columns",
                        help="answer only for the output field NAME (repeatable; matched as the dialect matches "
                             "names, ignoring case unless it is case-sensitive)")
    parser.add_argument("--relationship", "-r", action="append", metavar="KINDS", dest="relationships",
                        help="keep only sources of these relationship kinds, comma-separated (value, grouping, "
                             "control, join, window, sort, policy, quality; repeatable)")
    parser.add_argument("--jobs", "-j", type=_jobs, metavar="N",
                        help="explain statement by statement (a query log), each statement on its own, on N "
                             "processes ('auto': every core); a FILE that is a directory is always read so, "
                             "with every core unless N is given; a directory with --through-script: each file "
                             "is one script, the files in parallel (see docs/cli.md)")
    add_openlineage_arguments(parser)
    parser.set_defaults(run=run)


def _jobs(value: str) -> int:
    """``--jobs``: a positive count, or ``auto`` (0) for every core."""
    if value == "auto":
        return 0
    try:
        jobs = int(value)
    except ValueError:
        jobs = -1
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number or 'auto', got {value!r}")
    return jobs


def run(args) -> int:
    filters = args.columns is not None or args.relationships is not None
    relationship_kinds(args.relationships)  # an unknown kind is a usage error before any work
    check_sql_only_options(args)
    if args.format == "openlineage":
        if filters:
            raise UsageError("--column and --relationship filter the text, json, dot and mermaid output; "
                             "--format openlineage exports every field")
        from .openlineage_format import run_openlineage

        return run_openlineage(args)
    if args.jobs is not None or (args.file not in (None, "-") and os.path.isdir(args.file)):
        if args.format in ("dot", "mermaid"):
            raise UsageError(f"--format {args.format} draws the statements of one file; a directory or --jobs "
                             "answers statement by statement (text or json)")
        from .batch import default_jobs, run_batch

        return run_batch(args, args.jobs or default_jobs())
    catalog = read_catalog(args.schema, getattr(args, "strict", False))
    functions = read_functions(args.functions)
    statements = substrait_statements(args, catalog)
    plan = frame_plan(args)
    if statements is not None:
        explanation = mark_case_sensitive(explain_statements(statements, functions), True)
    elif plan is not None:
        explanation = run_explain(plan, functions=functions)
    else:
        text, file = read_sql(args.file)
        explanation = run_explain(text, catalog, args.dialect, file=file, functions=functions,
                                  through_script=args.through_script)
        if not explanation.statements:
            raise no_statements(file)
    if filters:
        explanation = explanation.filtered(args.columns, args.relationships)
    if args.format == "json":
        sys.stdout.write(explanation.to_json() + "\n")
    elif args.format == "dot":
        sys.stdout.write(render_dot(explanation))
    elif args.format == "mermaid":
        sys.stdout.write(render_mermaid(explanation))
    else:
        sys.stdout.write(render_text(explanation))
    return 0
