"""The ``prism-lineage`` command line.  Exit codes: see ``prism_lineage.errors`` and docs/cli.md."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from importlib import import_module

from ..errors import PrismError, UsageError
from ..terminal import printable

INTERNAL_ERROR = 70
INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (exit code 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see '{self.prog} --help')")


# Every command, in the order ``--help`` lists them: the module that registers it and its help
# line.  Only the module of the command being run is imported (``--help`` imports none), so a
# command pays for what it uses: ``lineage`` answering from the store never imports sqlglot.
# tests/test_cli_startup.py checks each help line against the one its module registers.
COMMANDS: dict[str, tuple[str, str]] = {
    "explain": ("explain", "for every output field, the base columns it depends on and how"),
    "graph": ("graph", "the plan-level lineage edges with their targets and origins (explain plan)"),
    "lineage": ("lineage", "table-level lineage of a governed project: the edges around an asset, or its impact"),
    "review": ("review", "whether a change to a project waits for approval (certified tables), with its downstream "
                         "impact"),
    "sync": ("sync", "work out an environment's lineage into its index: read new and changed SQL, write one epoch"),
    "observe": ("observe", "record observed edges from OpenLineage run events or a warehouse query log"),
    "serve": ("serve", "the lineage explorer as a web page (and its JSON API), answering from the index"),
    "index": ("index", "check, repair or compact an index (files, epochs, the current store)"),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``command``, that command's arguments in full (the others listed only)."""
    parser = _Parser(prog="prism-lineage", description="Exact, honest lineage for SQL and plans.")
    parser.add_argument("--version", action="version", version=f"prism-lineage {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    for name, (module_name, help_text) in COMMANDS.items():
        if name in commands.choices:
            continue  # registered by the module of another command (lineage registers review)
        if command is None or name != command:
            commands.add_parser(name, help=help_text)
            continue
        module = _command_module(module_name)
        if module is None:
            commands.add_parser(name, help=help_text)
        else:
            module.register(commands)
    return parser


def _command_module(name: str):
    """A command's module; None for an optional part that is not installed."""
    try:
        return import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as error:
        if error.name and error.name.startswith(f"{__name__}.{name}"):
            return None
        raise


def _command_of(argv: Sequence[str]) -> str | None:
    """The command the arguments run (the first word, when it names one)."""
    for word in argv:
        if word.startswith("-"):
            return None  # a top-level option (--help, --version) comes before any command
        return word if word in COMMANDS else None
    return None


def _version() -> str:
    from .. import __version__

    return __version__


# Set by a command whose process ends holding a large heap (``end_without_teardown``).
_WITHOUT_TEARDOWN = False


def end_without_teardown() -> None:
    """Ask the console script to end this process without the interpreter's teardown.

    A full sync of 100,000 assets ends holding about a gigabyte of Python objects (what it
    worked out, which its summary keeps).  Tearing the interpreter down frees them one by one and
    runs a last collection over them: 5 to 6 seconds at 100,000 assets in which the answer is
    already written and the user only waits.  The operating system frees a process's memory at
    once; ``console_main`` flushes the output and runs the exit handlers first, so nothing
    written is lost.  Only the console script does this: ``main`` called in process (tests, a
    host program) returns as always."""
    global _WITHOUT_TEARDOWN
    _WITHOUT_TEARDOWN = True


def console_main() -> None:
    """The ``prism-lineage`` console script (and ``python -m prism_lineage``): ``main``, then the
    process ends with its exit code — after a sync, without the interpreter's teardown
    (``end_without_teardown``)."""
    code = main()
    if not _WITHOUT_TEARDOWN:
        sys.exit(code)
    import atexit

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader that went away, a closed stream: nothing to keep
            pass
    atexit._run_exitfuncs()  # logging's flush, finalizers, temporary files: as at a normal exit
    _end(code)


def _end(code: int) -> None:
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        argv = list(sys.argv[1:] if argv is None else argv)
        parser = build_parser(_command_of(argv))
        args = parser.parse_args(argv)
        if not _answers_from_store(args):
            _quiet_sqlglot()
        return int(args.run(args) or 0)
    except PrismError as error:
        # One line, whatever the input it echoes holds (an escape sequence, a newline).
        print(f"prism-lineage: error: {printable(str(error))}", file=sys.stderr)
        if _json_requested(argv) and not getattr(error, "json_printed", False):
            _json_error(getattr(error, "code", None) or _code_of(error), str(error))
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
        message = (f"internal error: {type(error).__name__}: {printable(str(error))} "
                   "(a bug: please report it with the input; set PRISM_LINEAGE_DEBUG=1 for the traceback)")
        print(f"prism-lineage: {message}", file=sys.stderr)
        if _json_requested(argv):
            _json_error("internal_error", message)
        return INTERNAL_ERROR


def _answers_from_store(args) -> bool:
    """``lineage --index`` without ``--sync``: the store answers, no SQL is read (and logging,
    which sqlglot needs quietened, is not imported: the read path's start-up is its cost)."""
    return getattr(args, "command", None) == "lineage" and getattr(args, "index", None) is not None \
        and not getattr(args, "sync", False)


def _quiet_sqlglot() -> None:
    # sqlglot logs a warning for statements it reads only as commands (CALL, EXECUTE
    # IMMEDIATE …); the answer says what was not analysed, and stderr is for one error line.
    import logging

    logging.getLogger("sqlglot").setLevel(logging.ERROR)


def _json_requested(argv) -> bool:
    """Whether the arguments ask for ``-o json`` (read from the words, so that a failure before
    the arguments are parsed — a usage error — is printed as JSON too)."""
    words = list(argv or ())
    for i, word in enumerate(words):
        if word == "--":
            return False
        value = None
        # -o/--output and -f/--format are one option in every command (issue 10 item 12).
        for short, long in (("-o", "--output"), ("-f", "--format")):
            if word == short or (word.startswith(long[:3]) and long.startswith(word) and len(word) >= 3):
                value = words[i + 1] if i + 1 < len(words) else None
            elif word.startswith(short) and not word.startswith("--"):
                value = word[2:]
            elif word.startswith(long[:3]) and "=" in word and long.startswith(word.split("=", 1)[0]):
                value = word.split("=", 1)[1]
            if value is not None:
                break
        if value == "json":
            return True
    return False


def _code_of(error: PrismError) -> str:
    from ..errors import AccessRefusedError, InputError, ResolutionError

    for kind, name in ((UsageError, "usage"), (InputError, "unreadable_input"), (ResolutionError, "unresolved_name"),
                       (AccessRefusedError, "access_refused")):
        if isinstance(error, kind):
            return name
    return "refused"


def _json_error(code: str, message: str) -> None:
    """``{"error": {"code", "message"}}`` on stdout: what a console reading ``-o json`` reads."""
    import json

    try:
        sys.stdout.write(json.dumps({"error": {"code": code, "message": message}}, indent=2) + "\n")
    except (BrokenPipeError, ValueError):
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
