"""``prism-lineage lineage``: the edges around an asset, and ``lineage impact``: what is downstream.

::

    prism-lineage lineage ASSET --project DIR [--env ENV] [--direction up|down|both] [--depth N]
                                [-o text|json] [--as CREDENTIAL] [--index DIR]
                                [--base DIR | --base-rev REV [--approved]]
    prism-lineage lineage impact ASSET --project DIR [--env ENV] [-o text|json] [--as CREDENTIAL] …
    prism-lineage review --base DIR|--base-rev REV --project DIR [--env ENV] [-o text|json] …

One word after ``lineage`` is the asset; two words starting with ``impact`` ask for impact
(so an asset called ``impact`` is still explored with ``lineage impact``).  Without ``--as`` the
answer is the project owner's.  With ``--base``/``--base-rev``, the environment was last synced
at that version and ``--project`` is what a branch brings: an environment that reviews holds it
(not computed) until ``--approved``.  A refusal is one line on stderr (and, with ``-o json``,
``{"error": {"code", "message"}}`` on stdout) with the exit code documented in docs/governance.md.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from ..errors import InputError, PrismError, ResolutionError, UsageError
from ..errors import AccessRefusedError
from ..governance.access import authorized
from ..governance.answers import Refusal, RefusalAnswer
from ..governance.explorer import DEFAULT_DEPTH, explore
from ..governance.impact import impact
from ..governance.loading import load_project
from ..governance.rollup import environment_of, sync
from ..governance.text import render_explorer, render_impact
from ..governance.transitions import sync_transition, transition
from ..governance.walks import Direction
from ..terminal import printable

_DIRECTIONS = {"up": Direction.UPSTREAM, "down": Direction.DOWNSTREAM, "both": Direction.BOTH,
               "upstream": Direction.UPSTREAM, "downstream": Direction.DOWNSTREAM}


def register(commands) -> None:
    parser = commands.add_parser(
        "lineage",
        help="table-level lineage of a governed project: the edges around an asset, or its impact",
        description="The edges around a table or view of a project (native or dbt), with how each is known "
                    "(declared, parsed), or with 'impact ASSET' everything downstream of it.",
    )
    parser.add_argument("words", nargs="*", metavar="[impact] ASSET",
                        help="the asset's full name (namespace.name) or unambiguous short name; "
                             "'impact ASSET' lists everything downstream of it; none: choose one (see --search)")
    add_project_arguments(parser)
    parser.add_argument("--direction", choices=sorted(_DIRECTIONS), default="both",
                        help="upstream, downstream or both (default both)")
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH, metavar="N",
                        help=f"hops from the asset, 1 to 10 (default {DEFAULT_DEPTH}); outside is refused")
    parser.add_argument("--search", metavar="TEXT", default=None,
                        help="with no ASSET: list the tables and views you may see whose name holds TEXT")
    base = parser.add_mutually_exclusive_group()
    base.add_argument("--base", metavar="DIR", default=None,
                      help="the project as the environment was last synced (a directory); --project is then "
                           "what the branch brings, held while the environment reviews it")
    base.add_argument("--base-rev", metavar="REV", default=None,
                      help="as --base, the project at a git revision")
    parser.add_argument("--approved", action="store_true",
                        help="with --base or --base-rev: a person approved the environment's move to --project")
    parser.set_defaults(run=run)
    from . import review

    review.register(commands)


def add_project_arguments(parser) -> None:
    parser.add_argument("--project", required=True, metavar="DIR",
                        help="a native project directory (project.yaml) or a dbt project directory "
                             "(target/manifest.json, target/catalog.json)")
    parser.add_argument("--env", metavar="ENV", default=None,
                        help="the environment (may be left out when the project has one, or a default)")
    parser.add_argument("-o", "--output", choices=("text", "json"), default="text", help="output format")
    parser.add_argument("--as", dest="credential", metavar="CREDENTIAL", default=None,
                        help="answer as this member or API token (default: the project owner)")
    parser.add_argument("--index", metavar="DIR", default=None,
                        help="record this sync as a new epoch of the Parquet index in DIR (one directory per "
                             "project and environment) and answer from what the index holds (specs/index.md)")


def run(args) -> int:
    try:
        answer_text = _answer(args)
    except PrismError as error:
        refuse(args, error)
        raise
    sys.stdout.write(answer_text)
    return 0


def _answer(args) -> str:
    words = args.words
    if not words:
        return _choose(args)
    if len(words) == 2 and words[0] == "impact":
        mode, asset = "impact", words[1]
    elif len(words) == 1:
        mode, asset = "explore", words[0]
    else:
        raise UsageError(f"expected ASSET or 'impact ASSET', got {' '.join(words)!r}")
    project, base, viewer = _authorized_projects(args)
    lineage = _lineage(args, project, base)
    if mode == "impact":
        answer = impact(lineage, viewer, asset)
        return answer.to_json() + "\n" if args.output == "json" else render_impact(answer)
    found = explore(lineage, viewer, asset, _DIRECTIONS[args.direction], args.depth)
    return found.to_json() + "\n" if args.output == "json" else render_explorer(found)


def _authorized_projects(args):
    """The project (what the branch brings, with a base), the base (or None) and the viewer,
    refused before any work is done: ``lineage.read`` always, ``review.approve`` with
    ``--approved``.  With a base, who may see what is read there: the environment stands at the
    base, and a branch must not widen its own author's access."""
    has_base = args.base is not None or args.base_rev is not None
    if args.approved and not has_base:
        raise UsageError("--approved needs --base or --base-rev: it approves the move from that version")
    with tempfile.TemporaryDirectory(prefix="prism-lineage-") as scratch:
        base = access = None
        if has_base:
            base, access = load_project(args.base if args.base is not None
                                        else checkout(args.project, args.base_rev, Path(scratch)))
        project, own_access = load_project(args.project)
    viewer = authorized(access if base is not None else own_access, args.credential, approving=args.approved)
    return project, base, viewer


def _lineage(args, project, base):
    """The environment's lineage: not computed while it holds what the branch brings; else
    synced — with ``--index``, from the ledger of the index's last epoch, so only statements
    that changed since are read — and, with ``--index``, recorded and read back from the index."""
    if base is not None:
        move = transition(base, project, args.env, approved=args.approved)
        if move.held:
            return sync_transition(base, project, move.environment)  # not read, so not synced
        environment = move.environment
    else:
        environment = environment_of(project, args.env).name
    if not args.index:
        return _synced(project, base, environment, args.approved, None)
    import duckdb  # only here: the other commands do not pay for importing it

    from ..index import EpochIndex

    from ..governance.names import under

    # The names were checked when the project was loaded; the path is checked again once
    # resolved, so a link inside --index cannot lead the write outside it.
    index = EpochIndex(under(args.index, project.name, environment))
    try:
        previous = index.lineage(project.name, environment) if index.epochs() else None
        lineage = _synced(project, base, environment, args.approved, previous)
        index.write(lineage)
        stored = index.lineage(project.name, environment, with_ledger=False)
        # The index keeps the base (the owner's reading); a restricted credential's scope is
        # worked out from this sync's reading, over the same base.
        stored.scoped.update(lineage.scoped)
        stored.scoper = lineage.scoper
        stored.visibility_independent = lineage.visibility_independent
        return stored
    except OSError as error:
        raise InputError(f"cannot use the index in {args.index}: {error.strerror or error}") from None
    except duckdb.Error as error:
        raise InputError(f"cannot read the index in {args.index}: {str(error).splitlines()[0]}") from None


def _synced(project, base, environment: str, approved: bool, previous):
    if base is None:
        return sync(project, environment, previous=previous)
    return sync_transition(base, project, environment, approved=approved, previous=previous)


# Options that keep a git command to what it is asked: no pager, no prompt, no filesystem
# monitor hook a repository's own configuration could name.
_GIT = ("git", "-c", "core.fsmonitor=false", "--no-pager")


def checkout(project: str, revision: str, scratch: Path) -> Path:
    """The project directory as it was at git ``revision`` (read with ``git archive``).

    The revision is a value from the command line: it is verified to name a commit
    (``rev-parse --verify --end-of-options REV^{commit}``) and only the commit id it resolves to
    reaches ``git archive``, after ``--end-of-options``, so an option-shaped value
    (``--output=FILE``) is a revision that does not exist, never an option."""
    if not isinstance(revision, str):  # argparse reads ``--base-rev=--`` as an empty list
        revision = "--"
    root = Path(project).resolve()
    shown = printable(revision)
    commit = _git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}",
                  failure=f"'{shown}' is not a commit of the repository that holds {printable(project)}").strip()
    if not re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", commit):
        raise InputError(f"'{shown}' is not a commit of the repository that holds {printable(project)}")
    top = _git(root, "rev-parse", "--show-toplevel",
               failure=f"{printable(project)} is not in a git repository").strip()
    relative = root.relative_to(Path(top).resolve()).as_posix()
    # The commit id is 40 (or 64) hex digits, checked above: it cannot be read as an option.
    archive = _git(Path(top), "archive", "--format=tar", commit, "--", relative or ".",
                   failure=f"cannot read {printable(project)} at git revision '{shown}'", text=False)
    try:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(scratch, filter="data")  # nothing outside scratch, no device, no absolute link
    except (tarfile.TarError, OSError) as error:
        raise InputError(f"cannot read {printable(project)} at git revision '{shown}': {error}") from None
    return scratch / relative


def _git(directory: Path, *arguments: str, failure: str, text: bool = True):
    """The output of one git command run in ``directory``; ``failure`` (with git's last line of
    error) when it fails."""
    try:
        done = subprocess.run([*_GIT, "-C", str(directory), *arguments], check=True, capture_output=True,
                              stdin=subprocess.DEVNULL, env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})
    except OSError as error:
        raise InputError(f"{failure}: cannot run git: {error.strerror or error}") from None
    except subprocess.CalledProcessError as error:
        detail = (error.stderr or b"").decode(errors="replace").strip().splitlines()[-1:]
        raise InputError(f"{failure}{': ' + printable(detail[0]) if detail else ''}") from None
    return done.stdout.decode(errors="replace") if text else done.stdout


def _choose(args) -> str:
    """No asset named: no lineage is asked for; the tables and views one may see, by name (those
    of the version the environment stands at, while it holds what a branch brings)."""
    project, base, viewer = _authorized_projects(args)
    if base is not None:
        move = transition(base, project, args.env, approved=args.approved)
        standing = base if move.held and move.base is not None else project
        env = environment_of(standing, move.environment)
    else:
        env = environment_of(project, args.env)
    assets = [(a.full_name, kind) for kind, group in (("table", env.tables), ("view", env.views)) for a in group
              if viewer.sees(env.name, a.full_name) and (args.search or "").lower() in a.full_name.lower()]
    assets.sort()
    if args.output == "json":
        import json

        return json.dumps({"project": project.name, "environment": env.name, "choose": [
            {"name": name, "kind": kind} for name, kind in assets]}, indent=2) + "\n"
    lines = [f"choose an asset of {printable(project.name)}/{printable(env.name)}: "
             f"prism-lineage lineage ASSET --project {printable(args.project)}"]
    lines += [f"  {printable(name)}  {kind}" for name, kind in assets] or ["  (no table or view you may see matches)"]
    return "\n".join(lines) + "\n"


def refuse(args, error: PrismError) -> None:
    """With ``-o json``, the refusal as the answer the console reads (stderr says it too)."""
    if getattr(args, "output", "text") == "json":
        refusal = RefusalAnswer(error=Refusal(code=refusal_code(error), message=str(error)))
        sys.stdout.write(refusal.to_json() + "\n")


def refusal_code(error: PrismError) -> str:
    code = getattr(error, "code", None)
    if code:
        return code
    for kind, name in ((UsageError, "usage"), (InputError, "unreadable_input"),
                       (ResolutionError, "unresolved_name"), (AccessRefusedError, "access_refused")):
        if isinstance(error, kind):
            return name
    return "refused"
