"""The public answer of ``explain`` (JSON contract: specs/explain.md, BRIEF §4)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from ..lineage.kinds import Confidence, Relationship, Transformation


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, use_enum_values=True)


class SourceColumn(_Frozen):
    """One base column a field depends on, and how."""

    column: str
    relationship: Relationship
    transformation: Transformation
    confidence: Confidence


class FieldAnswer(_Frozen):
    name: str
    sources: list[SourceColumn]


class UncertainItem(_Frozen):
    """Something the engine could not determine.  ``field`` is ``None`` for the statement."""

    field: str | None
    reason: str


class StatementAnswer(_Frozen):
    index: int
    kind: str
    target: str | None
    fields: list[FieldAnswer]
    uncertain: list[UncertainItem]


class Explanation(_Frozen):
    statements: list[StatementAnswer]

    def to_json(self, indent: int | None = 2) -> str:
        return self.model_dump_json(indent=indent)
