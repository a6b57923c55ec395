"""Statements that change rows of a table in place: UPDATE, DELETE and MERGE.

``Modify`` reads its ``input`` — the target table's rows matched with the source rows
(``UPDATE … FROM``, ``DELETE … USING``, ``MERGE … USING … ON``), with the statement's WHERE
already applied — and changes them clause by clause.  Each ``WriteClause`` assigns some of
the written ``columns`` (by position) or deletes the rows it applies to.  ``INSERT`` and
``CREATE … AS`` need no such operator: their query's fields are written as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .expressions import Expr
from .relations import Field, Relation


class WriteAction(StrEnum):
    UPDATE = "update"
    INSERT = "insert"
    DELETE = "delete"
    NOTHING = "nothing"  # MERGE … THEN DO NOTHING: no row changed (its condition still decides)


class Matched(StrEnum):
    """Which rows a clause applies to."""

    ALWAYS = "always"  # UPDATE / DELETE statements: every row of the input
    MATCHED = "matched"  # MERGE WHEN MATCHED
    NOT_MATCHED = "not_matched"  # MERGE WHEN NOT MATCHED [BY TARGET]: source rows without a target row
    NOT_MATCHED_BY_SOURCE = "not_matched_by_source"  # target rows without a source row


@dataclass(frozen=True, slots=True)
class WriteClause:
    """``WHEN <matched> [AND condition] THEN UPDATE SET … | INSERT … | DELETE``.

    ``assignments`` pairs a position in ``Modify.columns`` with the expression written there.
    """

    action: WriteAction
    matched: Matched = Matched.ALWAYS
    condition: Expr | None = None
    assignments: tuple[tuple[int, Expr], ...] = ()


@dataclass(frozen=True, slots=True, eq=False)
class Modify(Relation):
    """The rows of ``target`` changed by ``clauses``; ``columns`` are the written columns.

    Clauses are tried in order and the first that applies to a row wins, so a clause is only
    reached when the conditions of the earlier clauses of the same ``matched`` kind fail.
    """

    target: str
    input: Relation
    clauses: tuple[WriteClause, ...]
    columns: tuple[Field, ...]

    @property
    def inputs(self) -> tuple[Relation, ...]:
        return (self.input,)

    @property
    def fields(self) -> tuple[Field, ...]:
        return self.columns

    @property
    def rows_id(self) -> str:
        """The target standing for *which* rows of ``target`` the statement changes, removes or
        adds (the answer's ``rows``): the matched rows and every clause's condition."""
        return f"{self.id}#rows"

    @property
    def changes_rows_only(self) -> bool:
        """Whether every clause updates values in place (none deletes or inserts rows)."""
        return all(c.action is WriteAction.UPDATE or c.action is WriteAction.NOTHING for c in self.clauses)
