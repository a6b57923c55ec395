"""``prism-lineage review``: does a change to a project (native or dbt) wait for approval
(certified tables), which environments hold it for review, and what is downstream of the tables
it touches."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from ..errors import PrismError
from ..governance.access import viewer_for
from ..governance.loading import load_project
from ..governance.review import CHANGE_SET_STATES, review
from ..governance.text import render_review

WAITS_EXIT_CODE = 9


def register(commands) -> None:
    parser = commands.add_parser(
        "review",
        help="whether a change to a project waits for approval (certified tables), with its downstream impact",
        description="Compares the project in --project with a base version (--base DIR or --base-rev REV) and "
                    "says which changes to certified tables wait for approval, with what is downstream.",
    )
    from .lineage import add_project_arguments

    add_project_arguments(parser)
    base = parser.add_mutually_exclusive_group(required=True)
    base.add_argument("--base", metavar="DIR", help="the project as it stands (a directory)")
    base.add_argument("--base-rev", metavar="REV", help="the project as it stands at a git revision")
    parser.add_argument("--state", choices=CHANGE_SET_STATES, default="proposed",
                        help="the change set's state (default proposed): only a proposed one is said to wait")
    parser.add_argument("--exit-code", action="store_true",
                        help=f"exit {WAITS_EXIT_CODE} when a change waits for approval (like 'git diff --exit-code')")
    parser.set_defaults(run=run)


def run(args) -> int:
    from .lineage import checkout, refuse

    try:
        with tempfile.TemporaryDirectory(prefix="prism-review-") as scratch:
            base = args.base if args.base is not None else checkout(args.project, args.base_rev, Path(scratch))
            _, access = load_project(base)
            answer = review(base, args.project, viewer_for(access, args.credential), args.env, args.state)
    except PrismError as error:
        refuse(args, error)
        raise
    sys.stdout.write(answer.to_json() + "\n" if args.output == "json" else render_review(answer))
    return WAITS_EXIT_CODE if args.exit_code and answer.waits_for_approval else 0
