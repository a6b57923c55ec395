"""``prism-lineage index check | repair | compact``: keeping an index healthy.

::

    prism-lineage index check   --index DIR [--project NAME] [--env ENV] [-o text|json]
    prism-lineage index repair  --index DIR [--project NAME] [--env ENV] [--wait] [-o text|json]
    prism-lineage index compact --index DIR [--project NAME] [--env ENV] [--keep N] [--wait] [-o text|json]

``check`` exits 1 when it finds a problem (``repair`` fixes it); see specs/control-plane.md.
"""

from __future__ import annotations

import sys

from ..errors import PrismError

PROBLEMS_FOUND = 1


def register(commands) -> None:
    parser = commands.add_parser(
        "index",
        help="check, repair or compact an index (files, epochs, the current store)",
        description="check: verify every file of every environment of the index; repair: quarantine what "
                    "cannot be read, remove what writers that stopped left, rebuild the current store; compact: "
                    "fold old epochs into one without changing any answer (specs/control-plane.md).",
    )
    parser.add_argument("action", choices=("check", "repair", "compact"))
    parser.add_argument("--index", required=True, metavar="DIR", help="the index")
    parser.add_argument("--project", metavar="NAME", default=None, help="only this project (its name)")
    parser.add_argument("--env", metavar="ENV", default=None, help="only this environment")
    parser.add_argument("--keep", type=int, default=0, metavar="N",
                        help="compact: keep the newest N epochs as they are (default 0: fold every one)")
    parser.add_argument("--wait", action="store_true", help="repair, compact: wait for a sync at work to finish")
    parser.add_argument("-o", "--output", "-f", "--format", dest="output", choices=("text", "json"), default="text", help="output format")
    parser.set_defaults(run=run)


def run(args) -> int:
    from ..control.maintenance import run as maintain
    from ..errors import InputError, UsageError
    from pathlib import Path

    try:
        if args.keep < 0:
            raise UsageError(f"--keep must be 0 or more, got {args.keep}")
        if not Path(args.index).is_dir():
            raise InputError(f"index directory not found: {args.index}")
        reports = maintain(args.index, args.action, project=args.project, environment=args.env, keep=args.keep,
                           wait=args.wait)
    except PrismError as error:
        from .lineage import refuse

        refuse(args, error)
        raise
    if args.output == "json":
        import json

        sys.stdout.write(json.dumps([r.as_dict() for r in reports], indent=2) + "\n")
    else:
        from ..terminal import printable

        lines = []
        for report in reports:
            state = "healthy" if report.healthy else "problems"
            lines.append(f"{printable(report.environment)}: {len(report.committed)} committed epochs, "
                         f"{report.files} files, {state}")
            for finding in report.findings:
                lines.append(f"  {finding.kind}: {printable(finding.path)}: {printable(finding.detail)}")
            for action in report.actions:
                lines.append(f"  did: {printable(action)}")
        if not reports:
            lines.append(f"no environment in the index {printable(args.index)}")
        sys.stdout.write("\n".join(lines) + "\n")
    if args.action == "check" and any(not r.healthy for r in reports):
        return PROBLEMS_FOUND
    return 0
