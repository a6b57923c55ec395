"""``prism-lineage observe``: record what runs showed as observed edges of an environment.

::

    prism-lineage observe [EVENTS.jsonl|-] --index DIR --project DIR [--env ENV] [--mapping FILE]
                          [--retention DAYS] [--max-event-bytes N] [-o text|json]
    prism-lineage observe --query-log LOG --index DIR --project DIR [--env ENV] [--dialect D] …

Exit codes: 0 every line was taken; 1 some lines were rejected (each named with its line number
and reason; the others were recorded); 2 usage; 3 unreadable input (docs/openlineage.md).
"""

from __future__ import annotations

import json
import sys
from datetime import timedelta

from ..errors import InputError, UsageError
from ..terminal import printable


def register(commands) -> None:
    parser = commands.add_parser(
        "observe",
        help="record observed edges from OpenLineage run events or a warehouse query log",
        description="Record what runs showed — OpenLineage run events (JSON lines) or a warehouse query log "
                    "(JSON lines or Parquet) — as observed edges (dotted) of a project's environment in the index.",
    )
    parser.add_argument("events", nargs="?", default=None, metavar="EVENTS",
                        help="OpenLineage events, one JSON document per line ('-': standard input)")
    parser.add_argument("--query-log", metavar="LOG", default=None,
                        help="a query log instead of events: Snowflake QUERY_HISTORY, BigQuery INFORMATION_SCHEMA.JOBS "
                             "or pg_stat_statements exports, JSON lines or Parquet")
    parser.add_argument("--index", required=True, metavar="DIR", help="the index (as lineage --index)")
    parser.add_argument("--project", required=True, metavar="DIR",
                        help="the project whose environment's assets the datasets name (native or dbt)")
    parser.add_argument("--env", metavar="ENV", default=None, help="the environment (see lineage --env)")
    parser.add_argument("--mapping", metavar="FILE", default=None,
                        help="how OpenLineage dataset names map to assets, per environment (YAML or JSON); default: "
                             "a dataset whose name is an asset's full name, in any namespace")
    parser.add_argument("--dialect", "-d", metavar="D", default=None,
                        help="with --query-log: the SQL dialect of records that do not say theirs")
    parser.add_argument("--database", action="append", default=None, metavar="NAME",
                        help="with --query-log: a warehouse database that holds this environment (repeatable); a "
                             "table qualified with another database is not one of its assets (default: any)")
    parser.add_argument("--retention", type=_days, default=30, metavar="DAYS",
                        help="an observed edge ends when no run showed it for DAYS days (default 30)")
    parser.add_argument("--max-event-bytes", type=_positive, default=None, metavar="N",
                        help="refuse an event larger than N bytes (default 2 MiB)")
    parser.add_argument("-o", "--output", "-f", "--format", dest="output", choices=("text", "json"), default="text", help="output format")
    parser.set_defaults(run=run)


def _days(value: str) -> float:
    try:
        days = float(value)
    except ValueError:
        days = -1
    if not days > 0:
        import argparse

        raise argparse.ArgumentTypeError(f"expected a positive number of days, got {value!r}")
    return days


def _positive(value: str) -> int:
    import argparse

    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {value!r}")
    return number


def run(args) -> int:
    if (args.events is None) == (args.query_log is None):
        raise UsageError("give either EVENTS (a file of OpenLineage events, '-' for standard input) or --query-log LOG")
    from ..control.paths import environment_root
    from ..governance.loading import load_project
    from ..governance.rollup import asset_id, environment_of
    from ..openlineage.events import MAX_EVENT_BYTES
    from ..openlineage.ingest import Ingestor
    from ..openlineage.naming import load_mapping
    from ..openlineage.query_log import read_log

    project, _ = load_project(args.project)
    env = environment_of(project, args.env)
    assets = {d.full_name: asset_id(project.name, env.name, d.full_name) for d in (*env.tables, *env.views)}
    rules = load_mapping(args.mapping, env.name)
    root = environment_root(args.index, project.name, env.name)
    ingestor = Ingestor(root, assets, rules=rules, retention=timedelta(days=args.retention),
                        max_event_bytes=args.max_event_bytes or MAX_EVENT_BYTES)
    figures = None
    try:
        with ingestor:
            summary, figures = _ingest(args, ingestor, read_log)
    except OSError as error:
        raise InputError(f"cannot use the index in {args.index}: {error.strerror or error}") from None
    return _report(args, project, env, summary, figures)


def _ingest(args, ingestor, read_log):
    figures = None
    if args.query_log is not None:
        summary, figures = ingestor.query_log(read_log(args.query_log, args.dialect), databases=args.database)
    elif args.events == "-":
        if sys.stdin is None or sys.stdin.isatty():
            raise InputError("no events given: '-' reads OpenLineage events from standard input")
        summary = ingestor.events(sys.stdin.buffer)
    else:
        try:
            with open(args.events, "rb") as handle:
                summary = ingestor.events(handle)
        except FileNotFoundError:
            raise InputError(f"events file not found: {args.events}") from None
        except IsADirectoryError:
            raise InputError(f"{args.events} is a directory, not a file of events") from None
    return summary, figures


def _report(args, project, env, summary, figures) -> int:
    where = f"{project.name}/{env.name}"
    if args.output == "json":
        answer = {"project": project.name, "environment": env.name, **summary.to_dict()}
        if figures is not None:
            answer["query_log"] = figures
        sys.stdout.write(json.dumps(answer, indent=2) + "\n")
    else:
        sys.stdout.write(_text(summary, figures, where))
    return 1 if summary.rejected else 0


def _text(summary, figures, where: str) -> str:
    lines = [f"observed into {printable(where)}: {summary.lines} lines, {summary.accepted} accepted, "
             f"{len(summary.rejected)} rejected; {summary.edges} observed edges recorded"]
    if figures is not None:
        ratio = f", dedup ratio {figures['dedup_ratio']}" if figures["dedup_ratio"] is not None else ""
        lines.append(f"  query log: {figures['statements']} statements read, {figures['distinct']} distinct "
                     f"analysed{ratio}")
    for reason, count in sorted(summary.skipped.items()):
        lines.append(f"  skipped {count}: {reason}")
    for rejected in summary.rejected:
        lines.append(f"  rejected line {rejected.line}: {printable(rejected.reason)}")
    for note in summary.notes:
        lines.append(f"  note: {printable(note)}")
    return "\n".join(lines) + "\n"
