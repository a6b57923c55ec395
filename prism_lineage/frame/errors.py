"""Errors of the dataframe API.

They are the library's typed errors (``prism_lineage.errors``), raised by the builder call
the user wrote and carrying that call site as their origin, so the message names the file
and line of the bad call.  The helpers here only word the messages the dataframe API needs.
"""

from __future__ import annotations

from ..errors import AmbiguousColumnError, InvalidStatementError, UnknownColumnError, UsageError
from ..ir import Origin


class _AtCallSite:
    """Renders the origin as the user's ``file:line`` (a SQL error renders line and column
    of the statement instead)."""

    message: str
    origin: Origin | None

    def __str__(self) -> str:
        origin = self.origin
        if origin is None:
            return self.message
        where = f"{origin.file}:{origin.line}" if origin.file else f"line {origin.line}"
        return f"{self.message} (at {where})"


class FrameUsageError(_AtCallSite, UsageError):
    """A builder was called with an argument it cannot use (wrong type, bad value)."""


class FrameStatementError(_AtCallSite, InvalidStatementError):
    """The plan being built cannot be valid (aggregate outside ``agg``, arity mismatch …)."""


class FrameUnknownColumnError(_AtCallSite, UnknownColumnError):
    """An unknown column: names it and lists the columns the frame has."""


class FrameAmbiguousColumnError(_AtCallSite, AmbiguousColumnError):
    """A name several columns of the frame answer to: lists them."""


def foreign_column(name: str, owner: str, available: list[str], origin: Origin | None) -> FrameUnknownColumnError:
    """``df["x"]`` used in a frame that ``df``'s column does not reach."""
    error = FrameUnknownColumnError(name, table=None, available=available, origin=origin)
    shown = ", ".join(available[:12]) + (", …" if len(available) > 12 else "")
    error.message = (
        f"column '{name}' of {owner} is not an input of this frame (a column bound with df[...] "
        f"refers to that frame's rows only){'; available: ' + shown if shown else ''}"
    )
    error.args = (error.message,)
    return error


def unknown_field(name: str, value: str, available: list[str], origin: Origin | None) -> FrameUnknownColumnError:
    """A struct field the value's declared type does not have."""
    error = FrameUnknownColumnError(name, table=value, available=available, origin=origin)
    error.message = f"unknown field '{name}' of the struct {value}; its fields: {', '.join(available)}"
    error.args = (error.message,)
    return error


def self_join_ambiguity(name: str, candidates: list[str], origin: Origin | None) -> FrameAmbiguousColumnError:
    error = FrameAmbiguousColumnError(name, candidates, origin)
    error.message += " (both sides of a self-join: give each side its own name with .alias())"
    error.args = (error.message,)
    return error


__all__ = [
    "FrameAmbiguousColumnError", "FrameStatementError", "FrameUnknownColumnError", "FrameUsageError",
    "foreign_column", "self_join_ambiguity", "unknown_field",
]
