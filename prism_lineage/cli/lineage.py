"""``prism-lineage lineage``: the edges around an asset, and ``lineage impact``: what is downstream.

::

    prism-lineage lineage ASSET --project DIR [--env ENV] [--direction up|down|both] [--depth N]
                                [-o text|json] [--as CREDENTIAL] [--index DIR [--sync]]
                                [--base DIR | --base-rev REV [--approved]]
    prism-lineage lineage impact ASSET --project DIR [--env ENV] [-o text|json] [--as CREDENTIAL] …
    prism-lineage review --base DIR|--base-rev REV --project DIR [--env ENV] [-o text|json] …

With ``--index DIR`` the answer comes from the environment's current store in the index, as of
its last sync (``prism-lineage sync``; ``--sync`` runs one first), and says which: the read path
loads nothing of the project and imports neither sqlglot nor pydantic (``control/reading.py``).
Without ``--index`` the project is loaded and worked out in memory for this one answer.

One word after ``lineage`` is the asset; two words starting with ``impact`` ask for impact
(so an asset called ``impact`` is still explored with ``lineage impact``).  Without ``--as`` the
answer is the project owner's.  With ``--base``/``--base-rev``, the environment was last synced
at that version and ``--project`` is what a branch brings: an environment that reviews holds it
(not computed) until ``--approved``.  A refusal is one line on stderr (and, with ``-o json``,
``{"error": {"code", "message"}}`` on stdout) with the exit code documented in docs/governance.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import AccessRefusedError, InputError, PrismError, ResolutionError, UsageError

# What the in-memory path needs (the project loader, the rollup, pydantic) is imported where it
# is used: the store's read path must not pay for it.
DEFAULT_DEPTH = 2
_DIRECTIONS = {"up": "upstream", "down": "downstream", "both": "both", "upstream": "upstream",
               "downstream": "downstream"}


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
    parser.add_argument("--index", metavar="DIR", default=None,
                        help="answer from the environment's current store in the index DIR, as of its last sync "
                             "(see 'prism-lineage sync'), without reading the project (specs/control-plane.md)")
    parser.add_argument("--sync", action="store_true",
                        help="with --index: sync the environment first (as 'prism-lineage sync' does)")
    parser.add_argument("--wait", action="store_true",
                        help="with --sync: wait for another sync of the environment to finish instead of failing")
    from .sync import add_reading_arguments

    add_reading_arguments(parser)
    parser.set_defaults(run=run)


def add_project_arguments(parser) -> None:
    parser.add_argument("--project", required=True, metavar="DIR",
                        help="a native project directory (project.yaml) or a dbt project directory "
                             "(target/manifest.json, target/catalog.json)")
    parser.add_argument("--env", metavar="ENV", default=None,
                        help="the environment (may be left out when the project has one, or a default)")
    parser.add_argument("-o", "--output", "-f", "--format", dest="output", choices=("text", "json"), default="text", help="output format")
    parser.add_argument("--as", dest="credential", metavar="CREDENTIAL", default=None,
                        help="answer as this member or API token (default: the project owner)")


def run(args) -> int:
    try:
        if args.index is not None:
            answer_text = _answer_from_store(args)
        elif args.sync or args.wait:
            raise UsageError("--sync and --wait need --index: the sync writes into an index")
        else:
            answer_text = _answer(args)
    except PrismError as error:
        refuse(args, error)
        raise
    sys.stdout.write(answer_text)
    return 0


def _question(args) -> tuple[str, str]:
    """("explore" or "impact", the asset) the words ask."""
    words = args.words
    if len(words) == 2 and words[0] == "impact":
        return "impact", words[1]
    if len(words) == 1:
        return "explore", words[0]
    raise UsageError(f"expected ASSET or 'impact ASSET', got {' '.join(words)!r}")


def _answer_from_store(args) -> str:
    """The answer from the store (``control/reading.py``), as of the last sync, which it names."""
    from ..control.reading import StoreReader
    from ..control.locate import locate, not_computed_answer

    mode, asset = _question(args) if args.words else ("choose", "")
    has_base = args.base is not None or args.base_rev is not None
    if args.approved and not has_base:
        raise UsageError("--approved needs --base or --base-rev: it approves the move from that version")
    if has_base and not args.sync:
        raise UsageError("--base and --base-rev with --index need --sync: the store answers as of its last sync; "
                         "--sync syncs the move first")
    if args.sync:
        from ..control.sync import sync

        _authorized_projects(args)  # refused before any work: a refused credential syncs nothing
        summary = sync(args.project, args.index, args.env, wait=args.wait, base=args.base, base_rev=args.base_rev,
                       approved=args.approved, jobs=args.jobs or None, statement_timeout=args.statement_timeout,
                       max_statement_bytes=args.max_statement_bytes)
        from . import end_without_teardown

        end_without_teardown()  # the summary holds what the sync worked out (``cli.end_without_teardown``)
        print(summary.line(), file=sys.stderr)
    found = locate(args.index, args.project, args.env)
    if found.store is None:
        print(f"prism-lineage: {found.project}/{found.environment} has not been synced into {args.index}: "
              f"its lineage is not computed (run prism-lineage sync)", file=sys.stderr)
        answer = not_computed_answer(found, args.credential, mode, asset, _DIRECTIONS[args.direction], args.depth,
                                     args.search)
        return _render(args, mode, answer, None)
    with StoreReader(found.root) as reader:
        viewer = reader.viewer(args.credential)
        if mode == "choose":
            return _render_choice(args, reader.project, reader.environment, reader.choose(viewer, args.search))
        if mode == "impact":
            answer = reader.impact(viewer, asset)
        else:
            answer = reader.explore(viewer, asset, _DIRECTIONS[args.direction], args.depth)
        return _render(args, mode, answer, reader.as_of())


def _render(args, mode: str, answer, as_of: dict | None) -> str:
    from ..governance.text import render_explorer, render_impact

    if mode == "choose":
        return _render_choice(args, answer[0], answer[1], answer[2])
    if args.output == "json":
        if as_of is None:
            return answer.to_json() + "\n"
        import json

        return json.dumps({**answer.to_dict(), "as_of": as_of}, indent=2, ensure_ascii=False) + "\n"
    text = render_explorer(answer) if mode == "explore" else render_impact(answer)
    if as_of is not None:
        text += as_of_line(as_of)
    return text


def as_of_line(as_of: dict) -> str:
    """Which sync a stored answer is as of, in words."""
    revision = f", revision {as_of['revision']}" if as_of.get("revision") else ""
    if as_of.get("reading"):
        return (f"\nas of a sync still reading{revision.replace(',', '', 1)} (started "
                f"{as_of.get('synced_at') or 'at a time unknown'}): what it has not read yet says so\n")
    epoch = f"epoch {as_of['epoch']}" if as_of.get("epoch") is not None else "no epoch"
    return f"\nas of the last sync ({epoch}{revision}, {as_of.get('synced_at') or 'time unknown'})\n"


def _answer(args) -> str:
    from ..governance.explorer import explore
    from ..governance.impact import impact
    from ..governance.text import render_explorer, render_impact

    if not args.words:
        return _choose(args)
    mode, asset = _question(args)
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
    import tempfile

    from ..governance.access import authorized
    from ..governance.loading import load_project

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
    """The environment's lineage, worked out in memory: not computed while it holds what the
    branch brings; else synced."""
    from ..governance.rollup import environment_of, sync
    from ..governance.transitions import sync_transition, transition

    if base is not None:
        move = transition(base, project, args.env, approved=args.approved)
        if move.held:
            return sync_transition(base, project, move.environment)  # not read, so not synced
        return sync_transition(base, project, move.environment, approved=args.approved)
    return sync(project, environment_of(project, args.env).name)


# Options that keep a git command to what it is asked: no pager, no prompt, no filesystem
# monitor hook a repository's own configuration could name.
_GIT = ("git", "-c", "core.fsmonitor=false", "--no-pager")


def checkout(project: str, revision: str, scratch: Path) -> Path:
    """The project directory as it was at git ``revision`` (read with ``git archive``).

    The revision is a value from the command line: it is verified to name a commit
    (``rev-parse --verify --end-of-options REV^{commit}``) and only the commit id it resolves to
    (hex digits) reaches ``git archive``, so an option-shaped value (``--output=FILE``) is a
    revision that does not exist, never an option."""
    import io
    import re
    import tarfile

    from ..terminal import printable

    if not isinstance(revision, str):  # argparse reads ``--base-rev=--`` as an empty list
        revision = "--"
    root = Path(project).resolve()
    shown = printable(revision)
    # Outside a git work tree there is no revision to read: say that (issue 10 item 13), not
    # that the revision is not a commit.
    _git(root, "rev-parse", "--is-inside-work-tree",
         failure=f"{printable(project)} is not in a git work tree, so --base-rev '{shown}' cannot be read "
                 "(give the base as a directory: --base DIR)")
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
    import os
    import subprocess

    from ..terminal import printable

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
    from ..governance.rollup import environment_of
    from ..governance.transitions import transition

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
    return _render_choice(args, project.name, env.name, assets)


def _render_choice(args, project: str, environment: str, assets: list[tuple[str, str]]) -> str:
    if args.output == "json":
        import json

        return json.dumps({"project": project, "environment": environment, "choose": [
            {"name": name, "kind": kind} for name, kind in assets]}, indent=2) + "\n"
    from ..terminal import printable

    lines = [f"choose an asset of {printable(project)}/{printable(environment)}: "
             f"prism-lineage lineage ASSET --project {printable(args.project)}"]
    lines += [f"  {printable(name)}  {kind}" for name, kind in assets] or ["  (no table or view you may see matches)"]
    return "\n".join(lines) + "\n"


def refuse(args, error: PrismError) -> None:
    """With ``-o json``, the refusal as the answer the console reads (stderr says it too)."""
    if getattr(args, "output", "text") == "json":
        from ..control.answers import Refusal, RefusalAnswer  # the models' JSON, without pydantic

        refusal = RefusalAnswer(error=Refusal(code=refusal_code(error), message=str(error)))
        sys.stdout.write(refusal.to_json() + "\n")
        error.json_printed = True  # main prints it for failures before a command runs


def refusal_code(error: PrismError) -> str:
    code = getattr(error, "code", None)
    if code:
        return code
    for kind, name in ((UsageError, "usage"), (InputError, "unreadable_input"),
                       (ResolutionError, "unresolved_name"), (AccessRefusedError, "access_refused")):
        if isinstance(error, kind):
            return name
    return "refused"
