"""``--frame FILE[:NAME]``: explain (or graph) a dataframe-style plan a Python file builds.

The file runs as a script would (``runpy``), under the module name ``__prism_frame__`` so its
``if __name__ == "__main__":`` block does not run; the plan is its variable NAME (default
``plan``), a ``prism_lineage.frame.DataFrame``.  A bad call in the plan raises the dataframe
API's typed error, with the line of the file that made it; anything else the file raises is an
input that could not be read (exit 3), with its message.
"""

from __future__ import annotations

import runpy
from pathlib import Path

from ..errors import InputError, ParseError, PrismError, UsageError

DEFAULT_NAME = "plan"


def add_frame_argument(parser) -> None:
    parser.add_argument("--frame", metavar="FILE[:NAME]",
                        help="a Python file that builds a dataframe plan, and the variable holding it (default "
                             f"'{DEFAULT_NAME}'), instead of a SQL FILE (see docs/frame.md)")


def frame_plan(args):
    """The plan ``--frame`` names, or ``None`` when it names none."""
    spec = getattr(args, "frame", None)
    if spec is None:
        return None
    if args.file not in (None, "-"):
        raise UsageError(f"give either a SQL FILE ({args.file}) or --frame FILE, not both")
    if getattr(args, "substrait", None) is not None:
        raise UsageError("give either --substrait FILE or --frame FILE, not both")
    path, name = _split(spec)
    namespace = _run(path)
    if name not in namespace:
        from ..frame import DataFrame

        found = sorted(k for k, v in namespace.items() if isinstance(v, DataFrame))
        hint = f"; its frames: {', '.join(found)}" if found else "; it defines no DataFrame"
        raise InputError(f"{path} has no variable '{name}'{hint}")
    plan = namespace[name]
    if not callable(getattr(plan, "to_statements", None)):
        raise UsageError(f"'{name}' in {path} is a {type(plan).__name__}, not a dataframe plan")
    return plan


def _split(spec: str) -> tuple[Path, str]:
    """``FILE`` or ``FILE:NAME`` (a colon inside a Windows drive is part of the file)."""
    head, colon, tail = spec.rpartition(":")
    if colon and tail.isidentifier() and head and not head.endswith(("\\", "/")):
        return Path(head), tail
    return Path(spec), DEFAULT_NAME


def _run(path: Path) -> dict:
    if not path.is_file():
        raise InputError(f"Python file not found: {path}" if not path.exists() else f"{path} is not a file")
    try:
        return runpy.run_path(str(path), run_name="__prism_frame__")
    except PrismError:
        raise
    except SyntaxError as error:
        raise ParseError(f"{path} is not valid Python: {error.msg} (line {error.lineno})") from None
    except Exception as error:  # noqa: BLE001 - the user's code failed: say how, as an input error
        raise InputError(f"running {path} failed: {type(error).__name__}: {error}") from None
