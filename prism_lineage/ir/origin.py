"""Authored origins: where in the user's text (or Python code) a target was written."""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

_PLUS_ONE = (1).__add__


class Origin(tuple):
    """A span of authored source (immutable).

    SQL origins carry the statement index and 1-based line/column of the first and last
    character; Python call sites carry the file and line (columns are 0 when unknown).

    An origin in a SQL text keeps the text's line table and its character offsets and works
    out line and column when asked: most origins are never shown (``explain`` answers do not
    print them), and lowering makes one for every expression, so making one must be cheap —
    hence a tuple: ``(start, end, statement, file, text, line, column, end_line, end_column)``.
    """

    __slots__ = ()

    def __new__(cls, line: int, column: int, end_line: int, end_column: int, statement: int | None = None,
                file: str | None = None, start: int = -1, end: int = -1):
        return tuple.__new__(cls, (start, end, statement, file, None, line, column, end_line, end_column))

    @classmethod
    def in_text(cls, text: "SourceText", start: int, end: int, statement: int | None) -> "Origin":
        return tuple.__new__(cls, (start, end, statement, text.file, text, None, None, None, None))

    # Character offsets into the text (first and last character), -1 when not from a text;
    # kept so spans can be joined cheaply.
    start = property(lambda self: self[0])
    end = property(lambda self: self[1])
    statement = property(lambda self: self[2])
    file = property(lambda self: self[3])

    def position(self) -> tuple[int, int]:
        """(line, column) of the first character."""
        text = self[4]
        return text.position(self[0]) if text is not None else (self[5], self[6])

    def end_position(self) -> tuple[int, int]:
        text = self[4]
        return text.position(self[1]) if text is not None else (self[7], self[8])

    line = property(lambda self: self.position()[0])
    column = property(lambda self: self.position()[1])
    end_line = property(lambda self: self.end_position()[0])
    end_column = property(lambda self: self.end_position()[1])

    def _key(self) -> tuple:
        return (*self.position(), *self.end_position(), self[2], self[3])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Origin) and self._key() == other._key()

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"Origin(line={self.line}, column={self.column}, end_line={self.end_line}, "
                f"end_column={self.end_column}, statement={self.statement}, file={self.file!r})")

    def __reduce__(self):
        # Pickle (``--jobs`` workers) as a plain origin: the line table stays behind.
        return (Origin, (*self.position(), *self.end_position(), self[2], self[3], self[0], self[1]))

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
        # The offset after every "\n": each line's start is the previous one's plus its length
        # and one, summed in C (a find() per line in Python was ~1% of explaining TPC-DS).
        lines = text.split("\n")
        lines.pop()
        self._line_starts = [0, *accumulate(map(_PLUS_ONE, map(len, lines)))]
        self.statement = statement
        self.file = file

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def span(self, start: int, end: int, statement: int | None = None) -> Origin:
        return tuple.__new__(Origin, (start, end, self.statement if statement is None else statement, self.file,
                                      self, None, None, None, None))

    def join(self, first: Origin | None, last: Origin | None) -> Origin | None:
        """The span from the start of ``first`` to the end of ``last`` (either may be absent)."""
        if first is None:
            return last
        if last is None:
            return first
        first_start, first_end, last_start, last_end = first[0], first[1], last[0], last[1]
        if first_start <= last_start and first_end >= last_end:
            return first
        return tuple.__new__(Origin, (min(first_start, last_start), max(first_end, last_end), first[2], self.file,
                                      self, None, None, None, None))

    def join_all(self, first: Origin | None, others: list) -> Origin | None:
        """``join`` of ``first`` with each of ``others`` in turn (``None`` entries skipped), in
        one pass: ``first`` itself (or the first origin given) when it covers the others, else
        one new span from the earliest start to the latest end, as the joins in turn give."""
        start = end = None
        for other in others:
            if other is None:
                continue
            if first is None:
                first = other
                continue
            if start is None:
                start, end = first[0], first[1]
            if other[0] < start:
                start = other[0]
            if other[1] > end:
                end = other[1]
        if start is None or (start == first[0] and end == first[1]):
            return first
        return tuple.__new__(Origin, (start, end, first[2], self.file, self, None, None, None, None))
