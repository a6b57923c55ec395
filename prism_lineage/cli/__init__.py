"""The ``prism-lineage`` command line.  Exit codes: see ``prism_lineage.errors`` and docs/cli.md."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from ..errors import PrismError, UsageError
from ..terminal import printable

INTERNAL_ERROR = 70
INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (exit code 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see '{self.prog} --help')")


def build_parser() -> argparse.ArgumentParser:
    from . import explain, graph

    parser = _Parser(prog="prism-lineage", description="Exact, honest lineage for SQL and plans.")
    parser.add_argument("--version", action="version", version=f"prism-lineage {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    for module in (explain, graph, *_extensions()):
        module.register(commands)
    return parser


def _extensions():
    """Command modules of optional parts (governance …), present when installed."""
    found = []
    for name in ("lineage",):
        try:
            module = __import__(f"{__name__}.{name}", fromlist=["register"])
        except ModuleNotFoundError:
            continue
        found.append(module)
    return found


def _version() -> str:
    from .. import __version__

    return __version__


def main(argv: Sequence[str] | None = None) -> int:
    # sqlglot logs a warning for statements it reads only as commands (CALL, EXECUTE
    # IMMEDIATE …); the answer says what was not analysed, and stderr is for one error line.
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        return int(args.run(args) or 0)
    except PrismError as error:
        # One line, whatever the input it echoes holds (an escape sequence, a newline).
        print(f"prism-lineage: error: {printable(str(error))}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("prism-lineage: interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:
        # The reader went away (``| head``): not an error of ours.
        sys.stderr.close()
        return 0
    except Exception as error:  # noqa: BLE001 - the last line of defence: never a traceback
        if os.environ.get("PRISM_LINEAGE_DEBUG"):
            raise
        print(
            f"prism-lineage: internal error: {type(error).__name__}: {printable(str(error))} "
            "(a bug: please report it with the input; set PRISM_LINEAGE_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return INTERNAL_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
