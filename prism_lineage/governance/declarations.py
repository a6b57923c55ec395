"""What a project declares in git: tables, views and pipelines, per environment.

These are the public models every loader (native YAML, dbt manifest) produces, so the rollup,
the explorer and the review gate never know which format a project was written in.  A
declaration remembers the ``file`` (relative to the project root) that holds it: every edge
says which file gives it, and the review gate compares files.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, field_validator, model_validator

from .names import identifier_problem, name_problem


class _Declaration(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def _identifier(value):
    """An identifier: any text without control characters (a NUL, an escape, a newline)."""
    if isinstance(value, str):
        if value and value.isprintable():
            return value  # the common identifier, without a call (``identifier_problem``'s first test)
        problem = identifier_problem(value)
        if problem is not None:
            raise ValueError(f"an identifier {problem}")
    elif isinstance(value, tuple):
        for item in value:
            _identifier(item)
    return value


def _name(value):
    """A project's or an environment's name: it becomes a directory of the index."""
    problem = name_problem(value)
    if problem is not None:
        raise ValueError(f"the name {problem}")
    return value


def _dialect(value):
    """A dialect sqlglot reads (refused by name otherwise: every statement would silently be
    "Could not be parsed")."""
    if value is not None:
        from ..frontends.sql.dialects import get_dialect

        from ..errors import UnknownDialectError

        try:
            get_dialect(value)
        except UnknownDialectError:
            raise ValueError(f"unknown dialect '{value}' (see sqlglot's dialects: duckdb, snowflake, "
                             "postgres, bigquery …)") from None
    return value


class Column(_Declaration):
    """A column a table declares.  ``id`` is optional; when a file gives its columns ids, a
    column keeps its id across renames (the review gate matches columns by id).  Defaults are
    kept as written (``default``; ``initial_default`` and ``write_default`` as Iceberg names
    them); none of them changes lineage."""

    name: str
    id: StrictInt | None = None
    type: str | None = None
    required: StrictBool = False
    doc: str | None = None
    default: Any = None
    initial_default: Any = None
    write_default: Any = None


# A partition field or a write-order (sort) field: as written, e.g. ``day(ordered_at)``, or a
# mapping such as ``{column: ordered_at, transform: day}`` / ``{column: id, direction: desc}``.
LayoutField = str | dict[str, Any]


class Routing(_Declaration):
    """Where a table's data is routed: its file format, the engine that writes it, and the
    consumers it is delivered to."""

    format: str | None = None
    engine: str | None = None
    consumers: tuple[str, ...] = ()


class TableMetadata(_Declaration):
    """The ordinary metadata of a table, kept as declared: nothing here changes lineage, and
    a change to any of it is not escalated for review (seed 000's list)."""

    doc: str | None = None
    labels: dict[str, Any] | tuple[str, ...] | None = None
    annotations: dict[str, Any] | None = None
    identifier_fields: tuple[str, ...] = ()
    schema_id: int | None = None
    partitions: tuple[LayoutField, ...] = ()
    properties: dict[str, Any] | None = None
    write_order: tuple[LayoutField, ...] = ()
    routing: Routing | None = None


class DeclaredRead(_Declaration):
    """A read an asset's author declared in its own code: a dbt model's ``ref()`` or
    ``source()`` (its manifest's ``depends_on``).  ``name``: the full name of the table or view
    read; ``call``: the call as written (``ref('stg_orders')``); ``through``: the ephemeral
    models it is read through, each with the call that model declares, nearest first."""

    name: str
    call: str
    through: tuple[tuple[str, str], ...] = ()

    _names = field_validator("name")(_identifier)


class Stewardship(_Declaration):
    """Who answers for an asset, and whether it is certified."""

    owner: str | None = None
    steward: str | None = None
    certified: StrictBool = False


class Table(TableMetadata):
    namespace: str
    name: str
    columns: tuple[Column, ...] = ()
    owner: str | None = None
    steward: str | None = None
    certified: StrictBool = False
    file: str
    aliases: tuple[str, ...] = ()  # other short names it answers to (a dbt model's name)
    # How strongly each alias holds a short name (parallel to ``aliases``; lower wins; empty:
    # all alike): dbt's ``--select`` precedence, a model's name over a seed's over a source's.
    alias_ranks: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()  # what the loader says of it (several dbt names, which one won)
    # Whether ``columns`` (or, without any, the columns its SQL outputs) are all it has: a
    # native declaration's are; a dbt node's YAML columns without catalog.json are only the
    # ones documented, so SQL naming another column is not said to read an unknown one.
    columns_complete: bool = True

    _names = field_validator("namespace", "name", "aliases")(_identifier)

    @property
    def full_name(self) -> str:
        return f"{self.namespace}.{self.name}"


class View(_Declaration):
    """A view: its SQL (always held inline, so it is read) and the reads its author lists."""

    doc: str | None = None
    labels: dict[str, Any] | tuple[str, ...] | None = None
    annotations: dict[str, Any] | None = None
    properties: dict[str, Any] | None = None
    namespace: str
    name: str
    sql: str
    reads: tuple[str, ...] = ()
    columns: tuple[Column, ...] = ()
    owner: str | None = None
    steward: str | None = None
    certified: StrictBool = False
    dialect: str | None = None
    file: str
    sql_read_from: str | None = None  # how the SQL was obtained when it is not the file's own text
    aliases: tuple[str, ...] = ()
    alias_ranks: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()
    columns_complete: bool = True
    # The reads its code declares (dbt ``ref()``/``source()``); None: it declares them in
    # ``reads`` instead (a native view).
    refs: tuple[DeclaredRead, ...] | None = None
    # "jinja": a dbt model's raw code still holding Jinja only dbt renders: held, never read.
    language: Literal["sql", "jinja"] = "sql"

    _names = field_validator("namespace", "name", "aliases", "reads")(_identifier)
    _dialects = field_validator("dialect")(_dialect)

    @property
    def full_name(self) -> str:
        return f"{self.namespace}.{self.name}"


SqlOrigin = Literal["inline", "file"]


class PipelineAsset(_Declaration):
    """One asset of a pipeline: it writes one table, with SQL held inline or named in a file.

    A native pipeline declares no read of another table (``refs`` None): what its SQL reads is
    parsed.  A dbt model does (``refs``: its ``ref()`` and ``source()`` calls, possibly none).
    ``language``: a dbt Python model's code, or raw code still holding Jinja only dbt renders
    (``jinja``), is held but not read (only SQL is)."""

    name: str
    writes: str
    sql: str | None = None
    sql_file: str | None = None
    depends_on: tuple[str, ...] = ()
    dialect: str | None = None
    sql_read_from: str | None = None
    file: str | None = None  # the file holding its SQL and depends_on, when not the pipeline's
    refs: tuple[DeclaredRead, ...] | None = None
    language: Literal["sql", "python", "jinja"] = "sql"

    _names = field_validator("name", "writes", "depends_on")(_identifier)
    _dialects = field_validator("dialect")(_dialect)

    @model_validator(mode="after")
    def _one_sql(self) -> "PipelineAsset":
        if (self.sql is None) == (self.sql_file is None):
            raise ValueError(f"asset '{self.name}' needs exactly one of 'sql' and 'sql_file'")
        return self


class Pipeline(_Declaration):
    name: str
    assets: tuple[PipelineAsset, ...]
    file: str

    _names = field_validator("name")(_identifier)

    @model_validator(mode="after")
    def _dependencies_inside(self) -> "Pipeline":
        # Counted and looked up in sets: a pipeline of thousands of assets stays linear.
        names: set[str] = set()
        for asset in self.assets:
            if asset.name in names:
                raise ValueError(f"pipeline '{self.name}' declares asset {asset.name!r} twice")
            names.add(asset.name)
        for asset in self.assets:
            for dependency in asset.depends_on:
                if dependency not in names:
                    raise ValueError(
                        f"asset '{asset.name}' of pipeline '{self.name}' depends on '{dependency}', "
                        "which is not an asset of the same pipeline"
                    )
        return self


class Environment(_Declaration):
    """One environment as it stands after its own patches: what the rollup reads.

    ``reviews``: a change the branch brings to this environment waits until a person approves
    the environment's move to it (``transitions.py``); one that does not review projects it
    without an approval."""

    name: str
    dialect: str | None = None
    reviews: StrictBool = False
    tables: tuple[Table, ...] = ()
    views: tuple[View, ...] = ()
    pipelines: tuple[Pipeline, ...] = ()
    patched: tuple[str, ...] = ()  # full names of tables this environment patches

    _dialects = field_validator("dialect")(_dialect)
    _checked_name = field_validator("name")(_name)

    @model_validator(mode="after")
    def _names_unique(self) -> "Environment":
        seen: dict[str, str] = {}
        for asset in (*self.tables, *self.views):
            other = seen.get(asset.full_name)
            if other is not None:
                raise ValueError(
                    f"environment '{self.name}' declares {asset.full_name} twice ({other} and {asset.file})"
                )
            seen[asset.full_name] = asset.file
        return self


class Project(_Declaration):
    name: str
    environments: tuple[Environment, ...] = Field(min_length=1)
    default_environment: str | None = None
    owner: str | None = None  # whose view an answer gives when no credential is named
    format: Literal["native", "dbt"] = "native"

    _checked_name = field_validator("name")(_name)

    def environment(self, name: str) -> Environment | None:
        return next((e for e in self.environments if e.name == name), None)
