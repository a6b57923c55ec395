"""The public answers of governance lineage (JSON contract: specs/governance.md, BRIEF §5).

Every answer holds only what the credential may see: a hidden asset's id, name, kind or count
appears nowhere in it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_serializer


class _Answer(BaseModel):
    model_config = ConfigDict(frozen=True, populate_by_name=True)

    def to_json(self, indent: int | None = 2) -> str:
        return self.model_dump_json(indent=indent, by_alias=True)


class AssetNode(_Answer):
    id: str
    name: str  # the full name, namespace.name
    kind: str  # table or view
    owner: str | None
    steward: str | None
    certified: bool
    sql_status: str | None  # None, or one of the three statuses in words
    sql_read_from: str | None = None  # for imported SQL: compiled_code, or raw_code with ref() resolved
    reads_at_least: bool = False
    note: str | None = None  # None, or exactly "Some lineage is not visible to you."
    # What its declarations and the reading of its SQL say of it, in words (names only assets
    # the viewer may see): several dbt names and which won, a column read that its table does
    # not declare, a read its declarations and its SQL disagree on.
    notes: list[str] = []
    distance: int = 0  # hops from the asset asked about


class ColumnEdge(_Answer):
    """A column of the feeding asset and a column of the fed one, from the engine."""

    source: str = Field(alias="from")
    target: str = Field(alias="to")
    relationship: str
    transformation: str
    confidence: str


class EdgeRow(_Answer):
    """One row per edge and mark."""

    source: str = Field(alias="from")
    target: str = Field(alias="to")
    source_name: str = Field(alias="from_name")
    target_name: str = Field(alias="to_name")
    mark: str
    line: str  # solid, dashed or dotted: the mark said without colour
    via: str  # view or pipeline: whose declaration or SQL gives the edge
    file: str
    columns: list[ColumnEdge] | None  # None for a declared edge: nothing is traced
    note: str | None = None
    revision: str | None = None  # a parsed edge: the git commit its statement was read at, when known
    # An observed edge only: the run that last showed it, and when (ISO 8601, UTC).
    run_id: str | None = None
    seen_at: str | None = None

    @model_serializer(mode="wrap")
    def _omit_absent_run(self, handler):
        data = handler(self)
        if self.mark != "observed":
            data.pop("run_id", None)
            data.pop("seen_at", None)
        return data


class LegendEntry(_Answer):
    mark: str
    line: str
    status: str


class ExplorerAnswer(_Answer):
    project: str
    environment: str
    environment_status: str
    asset: str
    direction: str
    depth: int
    marks: dict[str, str]
    legend: list[LegendEntry]
    cut: bool
    holds: int
    assets: list[AssetNode]
    edges: list[EdgeRow]
    sql_not_read: int
    notes: list[str]


class ImpactAsset(_Answer):
    id: str
    name: str
    kind: str
    owner: str | None
    steward: str | None
    certified: bool
    sql_status: str | None = None


class ImpactAnswer(_Answer):
    project: str
    environment: str
    environment_status: str
    asset: str
    marks: dict[str, str]
    at_least: bool
    count: int
    by_kind: dict[str, int]
    assets: list[ImpactAsset]
    sql_not_read: int
    notes: list[str]


class Refusal(_Answer):
    code: str
    message: str


class RefusalAnswer(_Answer):
    error: Refusal
