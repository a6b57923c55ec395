"""Generators: table-valued functions that turn one input row into zero or more rows.

``UNNEST(arr)``, ``EXPLODE``, ``POSEXPLODE``, ``INLINE``, Snowflake's ``FLATTEN``,
``generate_series`` … (SQL), ``explode`` (dataframes).  A generator is applied to each row of
its ``input`` (a lateral application: the arguments read the input's fields) and creates one
new field per generated column; the input's fields pass through beside them.  Without an
``input`` it stands alone (``FROM generate_series(1, 10)``), or it is the right side of a
lateral join whose arguments read the left side through ``OuterRef``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .expressions import Expr
from .relations import Field, Relation


class GeneratedRole(StrEnum):
    """What a generated column holds, which decides its lineage (specs/generator.md)."""

    ELEMENT = "element"  # an element of an array argument (path ``[]``), or a field of it
    VALUE = "value"  # a map's or object's value (path ``[]``)
    KEY = "key"  # a map's or object's key: the argument's shape
    INDEX = "index"  # the position of the element (ORDINALITY, OFFSET, POSEXPLODE's pos)
    PATH = "path"  # the path to the element inside the argument (FLATTEN's PATH)
    THIS = "this"  # the argument itself, repeated on every generated row (FLATTEN's THIS)
    SERIES = "series"  # a value computed from every argument (generate_series, user functions)
    SEQUENCE = "sequence"  # a counter made up by the engine (FLATTEN's SEQ): reads no data


@dataclass(frozen=True, slots=True)
class GeneratedColumn:
    """How one generated column is produced: its ``role``, the argument it is read from
    (``arg``: a position, a tuple of positions — ``STACK``'s column j is arguments j, j + k … —
    or ``None`` for every argument) and the path below that argument (``path``: e.g. ``[]`` or
    ``[].sku``)."""

    role: GeneratedRole
    arg: int | tuple[int, ...] | None = 0
    path: str | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Generator(Relation):
    """``function(args…)`` applied to every row of ``input``: its fields, then ``columns``.

    ``outputs`` says, per generated column, how it is produced.  ``outer`` keeps input rows
    for which nothing is generated (``LATERAL VIEW OUTER``, ``explode_outer``, ``LEFT JOIN
    UNNEST``).  ``exact`` is false when the generated columns could not be told from a typed
    argument or a registry entry; ``reason`` then says why.
    """

    input: Relation | None
    function: str
    args: tuple[Expr, ...]
    columns: tuple[Field, ...]
    outputs: tuple[GeneratedColumn, ...]
    outer: bool = False
    exact: bool = True
    reason: str | None = None

    @property
    def inputs(self) -> tuple[Relation, ...]:
        return (self.input,) if self.input is not None else ()

    @property
    def fields(self) -> tuple[Field, ...]:
        if self.input is None:
            return self.columns
        return self.input.fields + self.columns
