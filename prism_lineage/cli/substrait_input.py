"""``--substrait FILE`` / ``--spark-connect PLAN``: explain (or graph) a Substrait or Spark
Connect plan instead of SQL text.

The plan is binary protobuf or its JSON form (told apart by its first byte); ``-`` reads it
from standard input.  ``--schema`` still spells table names as the schema does; ``--dialect``
does not apply to a plan.
"""

from __future__ import annotations

import sys

from ..catalog import Catalog
from ..errors import InputError, UsageError
from ..ir import Statement


def add_substrait_argument(parser) -> None:
    parser.add_argument("--substrait", metavar="FILE",
                        help="a Substrait plan, binary protobuf or JSON ('-': standard input), instead of a SQL "
                             "FILE (see docs/substrait.md)")
    parser.add_argument("--spark-connect", metavar="PLAN", dest="spark_connect",
                        help="a Spark Connect plan, binary protobuf or JSON ('-': standard input), instead of a "
                             "SQL FILE; --schema declares the tables it reads (see docs/spark-connect.md)")


_PLAN_OPTIONS = (("substrait", "--substrait"), ("spark_connect", "--spark-connect"), ("frame", "--frame"))
_METAVARS = {"--substrait": "FILE", "--spark-connect": "PLAN", "--frame": "FILE"}


def plan_option(args) -> str | None:
    """The option that gives a plan instead of SQL text (``--substrait``, ``--spark-connect``,
    ``--frame``), or ``None``."""
    return next((option for name, option in _PLAN_OPTIONS if getattr(args, name, None) is not None), None)


def check_sql_only_options(args) -> None:
    """``--through-script`` and ``--jobs`` read SQL text: with a plan they would be ignored
    silently, so they are refused (exit 2)."""
    option = plan_option(args)
    if option is None:
        return
    if args.file not in (None, "-"):
        raise UsageError(f"give either a SQL FILE ({args.file}) or {option} {_METAVARS[option]}, not both")
    if getattr(args, "through_script", False):
        raise UsageError(f"--through-script follows the statements of a SQL script; a {option} plan is one "
                         "statement: drop --through-script")
    if getattr(args, "jobs", None) is not None:
        raise UsageError(f"--jobs and directories are for SQL statements; a {option} plan is explained whole: "
                         "drop --jobs")


def substrait_statements(args, catalog: Catalog) -> list[Statement] | None:
    """The statements of the plan ``--substrait`` names, or ``None`` when it names none."""
    path = getattr(args, "substrait", None)
    if getattr(args, "spark_connect", None) is not None:
        if path is not None:
            raise UsageError("give either --substrait or --spark-connect, not both")
        return _spark_connect_statements(args, catalog)
    if path is None:
        return None
    if args.file not in (None, "-"):
        raise UsageError(f"give either a SQL FILE ({args.file}) or --substrait FILE, not both")
    if getattr(args, "frame", None):
        raise UsageError("give either --frame or --substrait, not both")
    from ..frontends.substrait import SubstraitPlan

    if path == "-":
        if sys.stdin is None or sys.stdin.isatty():
            raise InputError("no Substrait plan given: '--substrait -' reads it from standard input")
        plan = SubstraitPlan.from_bytes(sys.stdin.buffer.read(), name="standard input", schema=catalog)
    else:
        plan = SubstraitPlan.from_file(path, schema=catalog)
    return plan.to_statements()


def _spark_connect_statements(args, catalog: Catalog) -> list[Statement]:
    path = args.spark_connect
    if args.file not in (None, "-"):
        raise UsageError(f"give either a SQL FILE ({args.file}) or --spark-connect PLAN, not both")
    if getattr(args, "frame", None):
        raise UsageError("give either --frame or --spark-connect, not both")
    from ..frontends.spark_connect import SparkConnectPlan

    if path == "-":
        if sys.stdin is None or sys.stdin.isatty():
            raise InputError("no Spark Connect plan given: '--spark-connect -' reads it from standard input")
        plan = SparkConnectPlan.from_bytes(sys.stdin.buffer.read(), name="standard input", schema=catalog)
    else:
        plan = SparkConnectPlan.from_file(path, schema=catalog)
    return plan.to_statements()
