"""Stable target ids.

An id is derived from what the target is and where it was authored — never from memory
addresses or a global counter — so the same input gives the same ids run after run:
``s0.project@3:8`` is the projection written at line 3, column 8 of statement 0.  Targets that
share a kind and a position (a star expanded into several fields, say) are told apart by a
suffix ``~1``, ``~2`` … numbered in authored order.
"""

from __future__ import annotations

from bisect import bisect_right

from .origin import Origin


class IdAllocator:
    """Hands out ids for the targets of one statement (or one dataframe plan)."""

    __slots__ = ("_prefix", "_seen")

    def __init__(self, prefix: str):
        self._prefix = prefix
        self._seen: dict[str, int] = {}

    @property
    def prefix(self) -> str:
        return self._prefix

    def new(self, kind: str, origin: Origin | None) -> str:
        if origin is None:
            key = f"{self._prefix}.{kind}"
        else:
            text = origin[4]
            if text is None:
                line, column = origin.position()
            else:
                # ``origin.position()``, inlined: every expression of a statement gets an id.
                start = origin[0]
                starts = text._line_starts
                line = bisect_right(starts, start)
                column = start - starts[line - 1] + 1
            key = f"{self._prefix}.{kind}@{line}:{column}"
        count = self._seen.get(key)
        if count is None:
            self._seen[key] = 1
            return key
        self._seen[key] = count + 1
        return f"{key}~{count}"


def field_id(relation_id: str, index: int) -> str:
    """The id of the ``index``-th field a relation creates."""
    return f"{relation_id}#{index}"


def column_id(table: str, column: str) -> str:
    """The id of a base column of a catalog table (a target shared by every statement)."""
    return f"column:{table}.{column}"
