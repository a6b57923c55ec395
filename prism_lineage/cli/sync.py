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
    add_reading_arguments(parser)
    parser.add_argument("--full", action="store_true",
                        help="read the project whole, even when the store can tell that nothing or only SQL changed")
    base = parser.add_mutually_exclusive_group()
    base.add_argument("--base", metavar="DIR", default=None,
                      help="the project as the environment was last synced; --project is what a branch brings, "
                           "held (not computed) while the environment reviews it")
    base.add_argument("--base-rev", metavar="REV", default=None, help="as --base, the project at a git revision")
    parser.add_argument("--approved", action="store_true",
                        help="with --base or --base-rev: a person approved the environment's move to --project")
    parser.add_argument("-o", "--output", "-f", "--format", dest="output", choices=("text", "json"), default="text",
                        help="text: the summary line on stderr; json: the summary on stdout")
    parser.set_defaults(run=run)


def add_reading_arguments(parser) -> None:
    """How a sync reads statements (``sync``, and ``lineage --sync``)."""
    parser.add_argument("--jobs", "-j", type=_jobs, default=None, metavar="N",
                        help="worker processes reading statements, or 'auto' for every core (default: auto)")
    parser.add_argument("--statement-timeout", type=_positive(float), default=None, metavar="SECONDS",
                        help="a statement that takes longer to read could not be parsed (default: no limit)")
    parser.add_argument("--max-statement-bytes", type=_positive(int), default=None, metavar="N",
                        help="a statement larger than N bytes (UTF-8) is not read: it could not be parsed "
                             "(default: no limit beyond the engine's own)")


def _jobs(value: str) -> int:
    import argparse

    if value == "auto":
        return 0
    try:
        jobs = int(value)
    except ValueError:
        jobs = -1
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number or 'auto', got {value!r}")
    return jobs


def _positive(kind):
    def parse(value: str):
        import argparse

        try:
            number = kind(value)
        except ValueError:
            number = 0
        if not number > 0:
            raise argparse.ArgumentTypeError(f"expected a positive number, got {value!r}")
        return number

    return parse


def run(args) -> int:
    from ..control.sync import sync

    try:
        with _Progress() as progress:
            summary = sync(args.project, args.index, args.env, wait=args.wait, base=args.base,
                           base_rev=args.base_rev, approved=args.approved, jobs=args.jobs or None,
                           statement_timeout=args.statement_timeout, max_statement_bytes=args.max_statement_bytes,
                           progress=progress, full=args.full)
    except PrismError as error:
        from .lineage import refuse

        refuse(args, error)
        raise
    from . import end_without_teardown

    end_without_teardown()  # the summary holds what the sync worked out: a gigabyte at 100,000 assets
    if args.output == "json":
        import json
        from dataclasses import asdict

        sys.stdout.write(json.dumps(asdict(summary), indent=2) + "\n")
    else:
        print(summary.line(), file=sys.stderr)
    return INTERRUPTED if summary.interrupted else 0


INTERRUPTED = 130


class _Progress:
    """A progress bar of the statements read, on stderr when it is a terminal (tqdm)."""

    def __init__(self):
        self.bar = None

    def __enter__(self) -> "_Progress":
        return self

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            if not sys.stderr.isatty():
                return
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="statement", file=sys.stderr, leave=False, dynamic_ncols=True,
                            mininterval=0.2)
        self.bar.n = done
        self.bar.refresh() if done == total else self.bar.update(0)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.close()
