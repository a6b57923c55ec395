"""``--substrait FILE``: explain (or graph) a Substrait plan instead of SQL text.

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


def substrait_statements(args, catalog: Catalog) -> list[Statement] | None:
    """The statements of the plan ``--substrait`` names, or ``None`` when it names none."""
    path = getattr(args, "substrait", None)
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
