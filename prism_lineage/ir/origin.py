"""Authored origins: where in the user's text (or Python code) a target was written."""

from __future__ import annotations

from bisect import bisect_right


class Origin:
    """A span of authored source (immutable).

    SQL origins carry the statement index and 1-based line/column of the first and last
    character; Python call sites carry the file and line (columns are 0 when unknown).

    An origin in a SQL text keeps the text's line table and its character offsets and works
    out line and column only when asked: most origins are never shown (``explain`` answers do
    not print them), and lowering makes one for every expression.
    """

    __slots__ = ("_line", "_column", "_end_line", "_end_column", "statement", "file", "start", "end", "_text")

    def __init__(self, line: int, column: int, end_line: int, end_column: int, statement: int | None = None,
                 file: str | None = None, start: int = -1, end: int = -1):
        setter = object.__setattr__
        setter(self, "_line", line)
        setter(self, "_column", column)
        setter(self, "_end_line", end_line)
        setter(self, "_end_column", end_column)
        setter(self, "statement", statement)
        setter(self, "file", file)
        # Character offsets into the text (first and last character), -1 when not from a
        # text; kept so spans can be joined cheaply.
        setter(self, "start", start)
        setter(self, "end", end)
        setter(self, "_text", None)

    @classmethod
    def in_text(cls, text: "SourceText", start: int, end: int, statement: int | None) -> "Origin":
        origin = cls.__new__(cls)
        setter = object.__setattr__
        setter(origin, "_line", None)
        setter(origin, "_end_line", None)
        setter(origin, "statement", statement)
        setter(origin, "file", text.file)
        setter(origin, "start", start)
        setter(origin, "end", end)
        setter(origin, "_text", text)
        return origin

    def __setattr__(self, name, value):
        raise AttributeError(f"Origin is immutable: cannot set {name}")

    @property
    def line(self) -> int:
        if self._line is None:
            line, column = self._text.position(self.start)
            object.__setattr__(self, "_line", line)
            object.__setattr__(self, "_column", column)
        return self._line

    @property
    def column(self) -> int:
        return self._column if self._line is not None else (self.line and self._column)

    @property
    def end_line(self) -> int:
        if self._end_line is None:
            line, column = self._text.position(self.end)
            object.__setattr__(self, "_end_line", line)
            object.__setattr__(self, "_end_column", column)
        return self._end_line

    @property
    def end_column(self) -> int:
        return self._end_column if self._end_line is not None else (self.end_line and self._end_column)

    def _key(self) -> tuple:
        return (self.line, self.column, self.end_line, self.end_column, self.statement, self.file)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Origin) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"Origin(line={self.line}, column={self.column}, end_line={self.end_line}, "
                f"end_column={self.end_column}, statement={self.statement}, file={self.file!r})")

    def __reduce__(self):
        # Pickle (``--jobs`` workers) as a plain origin: the line table stays behind.
        return (Origin, (self.line, self.column, self.end_line, self.end_column, self.statement, self.file,
                         self.start, self.end))

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
        return Origin.in_text(self, start, end, self.statement if statement is None else statement)

    def join(self, first: Origin | None, last: Origin | None) -> Origin | None:
        """The span from the start of ``first`` to the end of ``last`` (either may be absent)."""
        if first is None:
            return last
        if last is None or (first.start <= last.start and first.end >= last.end):
            return first
        return self.span(min(first.start, last.start), max(first.end, last.end), first.statement)
