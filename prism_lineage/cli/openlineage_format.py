"""``prism-lineage explain … --format openlineage``: one OpenLineage JobEvent per statement, as
JSON lines (each line a document an OpenLineage consumer accepts, e.g. ``POST /api/v1/lineage``).

The statements are lowered here rather than through ``explain()`` so that the prismLineage facet
can say where each statement and output field was written (their authored origins).
"""

from __future__ import annotations

import json
import os
import sys

from ..errors import UsageError
from .frame_input import frame_plan
from .inputs import read_catalog, read_functions, read_sql
from .substrait_input import substrait_statements


def add_openlineage_arguments(parser) -> None:
    group = parser.add_argument_group("with --format openlineage (see docs/openlineage.md)")
    group.add_argument("--openlineage-namespace", metavar="NS", default=None,
                       help="the OpenLineage namespace of the tables read and written (default: 'default')")
    group.add_argument("--openlineage-job-namespace", metavar="NS", default=None,
                       help="the namespace of the job, and of a query's result (default: 'prism-lineage')")
    group.add_argument("--openlineage-job", metavar="NAME", default=None,
                       help="the job's name (default: the FILE as given, 'stdin' or the plan's file), numbered "
                            "#1, #2 … when the input holds several statements")


def run_openlineage(args) -> int:
    from ..explain import explain as run_explain
    from ..explain import explain_statements, lower
    from ..openlineage import DEFAULT_JOB_NAMESPACE, DEFAULT_NAMESPACE, job_events, problems, to_document

    if args.jobs is not None or (args.file not in (None, "-") and os.path.isdir(args.file)):
        raise UsageError("--format openlineage explains one input at a time: it does not take --jobs or a directory")
    catalog = read_catalog(args.schema)
    functions = read_functions(args.functions)
    statements = substrait_statements(args, catalog)
    plan = frame_plan(args)
    if statements is not None:
        source = args.substrait if args.substrait != "-" else "stdin"
        explanation = explain_statements(statements, functions)
    elif plan is not None:
        source = args.frame
        explanation = run_explain(plan, functions=functions)
        # The same plan lowered again, for the origins (a dataframe plan lowers the same way twice).
        statements = plan.to_statements()
    else:
        text, file = read_sql(args.file)
        source = file or "stdin"
        statements = lower(text, catalog, args.dialect, file=file, functions=functions,
                           through_script=args.through_script)
        explanation = explain_statements(statements, functions)
    events = job_events(
        explanation, source=args.openlineage_job or source, plans=statements,
        namespace=args.openlineage_namespace or DEFAULT_NAMESPACE,
        job_namespace=args.openlineage_job_namespace or DEFAULT_JOB_NAMESPACE, functions=functions,
    )
    out = []
    for event in events:
        document = to_document(event)
        found = problems(document)
        if found:
            # Never hand out a document the schemas refuse: that is a bug of ours, said as one.
            raise RuntimeError(f"the exported event does not validate: {found[0]}")
        out.append(json.dumps(document, sort_keys=True))
    sys.stdout.write("".join(line + "\n" for line in out))
    return 0
