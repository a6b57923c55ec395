"""The public answer of ``explain`` (JSON contract: specs/explain.md, BRIEF §4)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, model_serializer

from ..lineage.kinds import Confidence, Relationship, Transformation


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, use_enum_values=True)


class SourceColumn(_Frozen):
    """One base column a field depends on, and how.  ``path`` (absent when the whole column
    is read) is the part of a nested or semi-structured column read: ``items[].sku``
    (specs/nested.md)."""

    column: str
    relationship: Relationship
    transformation: Transformation
    confidence: Confidence
    path: str | None = None

    @model_serializer(mode="wrap")
    def _omit_absent_path(self, handler):
        data = handler(self)
        if data.get("path") is None:
            data.pop("path", None)
        return data


class FieldAnswer(_Frozen):
    name: str
    sources: list[SourceColumn]


class UncertainItem(_Frozen):
    """Something the engine could not determine.  ``field`` is ``None`` for the statement."""

    field: str | None
    reason: str


class StatementAnswer(_Frozen):
    """One statement's answer.  ``reads`` and ``writes`` are the table-level summary: the
    tables the statement reads (every table its plan scans, in any clause, sorted) and the
    tables it writes or changes (its target).  ``rows`` (absent for queries and inserts)
    lists, for UPDATE, DELETE and MERGE, what decides which rows of the target are changed,
    removed or added: the WHERE, the join with the sources, every clause's condition
    (specs/writes.md)."""

    index: int
    kind: str
    target: str | None
    reads: list[str] = []
    writes: list[str] = []
    fields: list[FieldAnswer]
    uncertain: list[UncertainItem]
    rows: list[SourceColumn] | None = None

    @model_serializer(mode="wrap")
    def _omit_absent_rows(self, handler):
        data = handler(self)
        if data.get("rows") is None:
            data.pop("rows", None)
        return data


class Explanation(_Frozen):
    statements: list[StatementAnswer]

    def to_json(self, indent: int | None = 2) -> str:
        return self.model_dump_json(indent=indent)
