"""``prism-lineage sync``: work out an environment's lineage into its index (one epoch).

::

    prism-lineage sync --project DIR --index DIR [--env ENV] [--wait]
                       [--base DIR | --base-rev REV [--approved]] [-o text|json]

Reads the project at the checkout's revision, reads only new and changed SQL (a statement whose
SQL and looked-up addresses are unchanged is not read again), writes one epoch and updates the
environment's current store, which ``prism-lineage lineage --index DIR`` then answers from.  A
summary line on stderr (with ``-o json``, the summary as JSON on stdout).  See docs/cli.md.
"""

from __future__ import annotations

import sys

from ..errors import PrismError


def register(commands) -> None:
    parser = commands.add_parser(
        "sync",
        help="work out an environment's lineage into its index: read new and changed SQL, write one epoch",
        description="One pass over an environment at the checkout's revision: reads new and changed SQL only, "
                    "writes one epoch of the index and updates the environment's current store, from which "
                    "'prism-lineage lineage --index' answers (specs/control-plane.md).",
    )
    parser.add_argument("--project", required=True, metavar="DIR",
                        help="a native project directory (project.yaml) or a dbt project directory")
    parser.add_argument("--index", required=True, metavar="DIR",
                        help="the index: one directory per project and environment (created when missing)")
    parser.add_argument("--env", metavar="ENV", default=None,
                        help="the environment (may be left out when the project has one, or a default)")
    parser.add_argument("--wait", action="store_true",
                        help="wait for another sync of the same environment to finish (default: fail at once)")
    base = parser.add_mutually_exclusive_group()
    base.add_argument("--base", metavar="DIR", default=None,
                      help="the project as the environment was last synced; --project is what a branch brings, "
                           "held (not computed) while the environment reviews it")
    base.add_argument("--base-rev", metavar="REV", default=None, help="as --base, the project at a git revision")
    parser.add_argument("--approved", action="store_true",
                        help="with --base or --base-rev: a person approved the environment's move to --project")
    parser.add_argument("-o", "--output", choices=("text", "json"), default="text",
                        help="text: the summary line on stderr; json: the summary on stdout")
    parser.set_defaults(run=run)


def run(args) -> int:
    from ..control.sync import sync

    try:
        summary = sync(args.project, args.index, args.env, wait=args.wait, base=args.base, base_rev=args.base_rev,
                       approved=args.approved)
    except PrismError as error:
        from .lineage import refuse

        refuse(args, error)
        raise
    if args.output == "json":
        import json
        from dataclasses import asdict

        sys.stdout.write(json.dumps(asdict(summary), indent=2) + "\n")
    else:
        print(summary.line(), file=sys.stderr)
    return 0
