"""Authored origins: where in the user's text (or Python code) a target was written."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Origin:
    """A span of authored source.

    SQL origins carry the statement index and 1-based line/column of the first and last
    character; Python call sites carry the file and line (columns are 0 when unknown).
    """

    line: int
    column: int
    end_line: int
    end_column: int
    statement: int | None = None
    file: str | None = None
    # Character offsets into the text (first and last character), -1 when not from a text;
    # kept so spans can be joined cheaply.
    start: int = -1
    end: int = -1

    def render(self) -> str:
        where = f"{self.file}:" if self.file else ""
        if self.file and not self.column:
            return f"{where}{self.line}"
        if (self.line, self.column) == (self.end_line, self.end_column):
            return f"{where}{self.line}:{self.column}"
        return f"{where}{self.line}:{self.column}-{self.end_line}:{self.end_column}"

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
        }
        if self.statement is not None:
            out["statement"] = self.statement
        if self.file is not None:
            out["file"] = self.file
        return out


class SourceText:
    """Maps character offsets of a text to 1-based (line, column) pairs."""

    __slots__ = ("_line_starts", "statement", "file")

    def __init__(self, text: str, statement: int | None = None, file: str | None = None):
        starts = [0]
        find = text.find
        pos = find("\n")
        while pos != -1:
            starts.append(pos + 1)
            pos = find("\n", pos + 1)
        self._line_starts = starts
        self.statement = statement
        self.file = file

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def span(self, start: int, end: int, statement: int | None = None) -> Origin:
        line, column = self.position(start)
        end_line, end_column = self.position(end)
        return Origin(
            line,
            column,
            end_line,
            end_column,
            self.statement if statement is None else statement,
            self.file,
            start,
            end,
        )

    def join(self, first: Origin | None, last: Origin | None) -> Origin | None:
        """The span from the start of ``first`` to the end of ``last`` (either may be absent)."""
        if first is None:
            return last
        if last is None or (first.start <= last.start and first.end >= last.end):
            return first
        return self.span(min(first.start, last.start), max(first.end, last.end), first.statement)
