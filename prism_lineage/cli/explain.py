"""``prism-lineage explain``: where every output field of a query comes from."""

from __future__ import annotations

import argparse
import os
import sys

from ..explain import explain as run_explain
from ..explain import explain_statements
from ..explain.text import render_text
from .frame_input import add_frame_argument, frame_plan
from .inputs import add_sql_arguments, no_statements, read_catalog, read_functions, read_sql
from .openlineage_format import add_openlineage_arguments
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
    add_frame_argument(parser)
    parser.add_argument("--format", "-f", choices=("text", "json", "openlineage"), default="text",
                        help="output format (openlineage: one OpenLineage JobEvent per statement, JSON lines)")
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
    if args.format == "openlineage":
        from .openlineage_format import run_openlineage

        return run_openlineage(args)
    if args.jobs is not None or (args.file not in (None, "-") and os.path.isdir(args.file)):
        from .batch import default_jobs, run_batch

        return run_batch(args, args.jobs or default_jobs())
    catalog = read_catalog(args.schema)
    functions = read_functions(args.functions)
    statements = substrait_statements(args, catalog)
    plan = frame_plan(args)
    if statements is not None:
        explanation = explain_statements(statements, functions)
    elif plan is not None:
        explanation = run_explain(plan, functions=functions)
    else:
        text, file = read_sql(args.file)
        explanation = run_explain(text, catalog, args.dialect, file=file, functions=functions,
                                  through_script=args.through_script)
        if not explanation.statements:
            raise no_statements(file)
    if args.format == "json":
        sys.stdout.write(explanation.to_json() + "\n")
    else:
        sys.stdout.write(render_text(explanation))
    return 0
