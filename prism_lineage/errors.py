"""Typed errors.  Each carries what is wrong, where, and the CLI exit code it maps to.

Exit codes (also in docs/cli.md):

====  ===========================================================
 0    success
 2    usage: bad arguments, unknown dialect, value out of range
 3    input could not be read: missing file, unreadable schema
 4    the SQL (or plan) could not be parsed
 5    a name could not be resolved: unknown or ambiguous column/table
 6    the statement is invalid: e.g. set operation column counts differ
 7    access refused: the credential is not known, or lacks the permission named
      (governance: ``lineage.read``)
 9    ``prism-lineage review --exit-code``: a change waits for approval (not an error)
 70   internal error (a bug: please report it with the input)
====  ===========================================================
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (every command's start-up)
if TYPE_CHECKING:  # only annotations: importing the IR is not needed to raise an error
    from .ir.origin import Origin


class PrismError(Exception):
    """Base of every error prism_lineage raises on bad input."""

    exit_code = 1

    def __init__(self, message: str, *, origin: Origin | None = None):
        super().__init__(message)
        self.message = message
        self.origin = origin

    @property
    def line(self) -> int | None:
        return self.origin.line if self.origin else None

    @property
    def column(self) -> int | None:
        return self.origin.column if self.origin else None

    def __str__(self) -> str:
        if self.origin is None:
            return self.message
        where = f"statement {self.origin.statement + 1}, " if self.origin.statement else ""
        return f"{self.message} (at {where}line {self.origin.line}, column {self.origin.column})"


class UsageError(PrismError):
    """A caller passed an argument that cannot be used (unknown dialect, bad option)."""

    exit_code = 2


class UnknownDialectError(UsageError):
    def __init__(self, dialect: str, known: list[str]):
        super().__init__(f"unknown dialect '{dialect}'; known dialects: {', '.join(known)}")
        self.dialect = dialect


class InputError(PrismError):
    """An input file or document could not be read."""

    exit_code = 3


class SchemaError(InputError):
    """The schema document is unreadable or malformed."""


class ParseError(PrismError):
    """The SQL text could not be parsed."""

    exit_code = 4


class ResolutionError(PrismError):
    """A name in the query could not be resolved."""

    exit_code = 5


def closest(name: str, candidates: list[str]) -> str | None:
    """The candidate that looks most like ``name`` (a typo's likely meaning), if any does;
    ``t.col`` candidates are compared by their column name."""
    import difflib

    by_name: dict[str, str] = {}
    for candidate in candidates:
        by_name.setdefault(candidate.rpartition(".")[2].lower(), candidate)
    found = difflib.get_close_matches(name.lower(), list(by_name), n=1, cutoff=0.6)
    return by_name[found[0]] if found else None


class UnknownColumnError(ResolutionError):
    def __init__(self, column: str, *, table: str | None, available: list[str], origin: Origin | None):
        where = f" of {table}" if table else ""
        shown = ", ".join(available[:12]) + (", …" if len(available) > 12 else "")
        guess = closest(column, available)
        hint = f" (did you mean {guess}?)" if guess else ""
        hint += f"; available: {shown}" if available else ""
        super().__init__(f"unknown column '{column}'{where}{hint}", origin=origin)
        self.column_name = column
        self.table = table
        self.available = available


class AmbiguousColumnError(ResolutionError):
    def __init__(self, column: str, candidates: list[str], origin: Origin | None):
        super().__init__(
            f"ambiguous column '{column}': could be {' or '.join(candidates)}", origin=origin
        )
        self.column_name = column
        self.candidates = candidates


class UnknownTableError(ResolutionError):
    def __init__(self, name: str, available: list[str], origin: Origin | None):
        hint = f"; tables in scope: {', '.join(available)}" if available else ""
        super().__init__(f"unknown table or alias '{name}'{hint}", origin=origin)
        self.name = name
        self.available = available


class MissingTableError(UnknownTableError):
    """A query reads a table the schema given does not declare, and ``strict`` refuses it."""

    def __init__(self, name: str, close: list[str], origin: Origin | None):
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        ResolutionError.__init__(
            self, f"table '{name}' is not in the schema{hint}: with --strict, every table read must be declared",
            origin=origin)
        self.name = name
        self.available = close


class UnknownTargetError(UnknownTableError):
    """UPDATE, DELETE or MERGE into a table the schema given does not declare."""

    def __init__(self, statement: str, name: str, tables: list[str], origin: Origin | None):
        shown = ", ".join(tables[:10]) + (", …" if len(tables) > 10 else "")
        ResolutionError.__init__(
            self,
            f"{statement} target '{name}' is not in the schema: {statement} changes the rows of an existing table, "
            f"so the schema given must declare it (tables: {shown})",
            origin=origin,
        )
        self.name = name
        self.available = tables
        self.statement = statement


class AmbiguousTableError(ResolutionError):
    def __init__(self, name: str, candidates: list[str], origin: Origin | None):
        super().__init__(
            f"ambiguous table '{name}': the schema has {' and '.join(candidates)}", origin=origin
        )
        self.name = name
        self.candidates = candidates


class UnknownFieldError(ResolutionError, KeyError):
    """An output field asked for (``--column``, ``explain(...).field()``) that no statement has."""

    def __init__(self, name: str, available: list[str], where: str = "the answer"):
        from difflib import get_close_matches

        close = get_close_matches(name.lower(), [a.lower() for a in available], n=1, cutoff=0.6)
        hint = f" (did you mean {next(a for a in available if a.lower() == close[0])}?)" if close else ""
        shown = ", ".join(available[:20]) + (", …" if len(available) > 20 else "")
        listing = f"; its output fields: {shown}" if available else "; it has no output fields"
        super().__init__(f"no output field '{name}' in {where}{hint}{listing}")
        self.name = name
        self.available = available

    __str__ = PrismError.__str__


class AmbiguousFieldError(ResolutionError):
    """A field asked for by a name that several output fields match."""

    def __init__(self, name: str, candidates: list[str], where: str = "the answer"):
        super().__init__(f"ambiguous output field '{name}' in {where}: could be {' or '.join(candidates)}")
        self.name = name
        self.candidates = candidates


class InvalidStatementError(PrismError):
    """The statement parses but cannot be valid (e.g. set operation arity mismatch)."""

    exit_code = 6


class AccessRefusedError(PrismError):
    """The credential cannot be used for what was asked: unknown, or lacking a permission."""

    exit_code = 7


class NestingTooDeepError(InvalidStatementError):
    """The plan nests more deeply than the engine can follow (thousands of levels)."""
