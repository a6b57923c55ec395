"""Substrait types → the IR's normalised SQL type names, and the names of a ``NamedStruct``.

A ``NamedStruct`` (a read's base schema, a written table's schema) and ``RelRoot.names`` list
field names *depth-first*: a struct column's name is followed by the names of its fields (and
those of structs inside lists and maps), so the top-level column names are found by walking
the types, never by taking the list as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from google.protobuf.message import Message

from ...ir.types import DataType
from .errors import InvalidPlanError

_SIMPLE = {
    "bool": "BOOLEAN",
    "i8": "TINYINT",
    "i16": "SMALLINT",
    "i32": "INT",
    "i64": "BIGINT",
    "fp32": "REAL",
    "fp64": "DOUBLE",
    "string": "VARCHAR",
    "binary": "VARBINARY",
    "date": "DATE",
    "interval_year": "INTERVAL YEAR TO MONTH",
    "interval_day": "INTERVAL DAY TO SECOND",
    "interval_compound": "INTERVAL",
    "uuid": "UUID",
}


def type_name(substrait_type: Message | None, type_names: dict[int, str] | None = None) -> DataType:
    """``i32`` → ``INT``, ``decimal<10,2>`` → ``DECIMAL(10, 2)`` …; ``None`` when unknown."""
    if substrait_type is None:
        return None
    kind = substrait_type.WhichOneof("kind")
    if kind is None:
        return None
    if kind in _SIMPLE:
        return _SIMPLE[kind]
    detail = getattr(substrait_type, kind)
    match kind:
        case "decimal":
            return f"DECIMAL({detail.precision}, {detail.scale})"
        case "fixed_char":
            return f"CHAR({detail.length})"
        case "varchar":
            return f"VARCHAR({detail.length})"
        case "fixed_binary":
            return f"BINARY({detail.length})"
        case "precision_time":
            return f"TIME({detail.precision})"
        case "precision_timestamp":
            return f"TIMESTAMP({detail.precision})"
        case "precision_timestamp_tz":
            return f"TIMESTAMPTZ({detail.precision})"
        case "struct":
            inner = ", ".join(type_name(t, type_names) or "UNKNOWN" for t in detail.types)
            return f"STRUCT({inner})"
        case "list":
            return f"ARRAY({type_name(detail.type, type_names) or 'UNKNOWN'})"
        case "map":
            key = type_name(detail.key, type_names) or "UNKNOWN"
            value = type_name(detail.value, type_names) or "UNKNOWN"
            return f"MAP({key}, {value})"
        case "user_defined":
            return (type_names or {}).get(detail.type_reference, f"USER_DEFINED({detail.type_reference})")
    return kind.upper()


def nested_names(substrait_type: Message | None) -> int:
    """How many names a field of this type takes in a depth-first name list after its own."""
    if substrait_type is None:
        return 0
    kind = substrait_type.WhichOneof("kind")
    if kind == "struct":
        return sum(1 + nested_names(t) for t in substrait_type.struct.types)
    if kind == "list":
        return nested_names(substrait_type.list.type)
    if kind == "map":
        return nested_names(substrait_type.map.key) + nested_names(substrait_type.map.value)
    return 0


def top_level_names(names: Sequence[str], types: Sequence[Message | None]) -> list[str] | None:
    """The top-level field names of a depth-first name list over fields of ``types``, or
    ``None`` when the list does not have exactly the names the types call for."""
    out: list[str] = []
    position = 0
    for field_type in types:
        if position >= len(names):
            return None
        out.append(names[position])
        position += 1 + nested_names(field_type)
    return out if position == len(names) else None


@dataclass(frozen=True, slots=True)
class Shape:
    """The names of a nested type's parts, as a ``NamedStruct`` lists them: a struct's fields
    (name, shape), a list's element, a map's key and value (``None``: nothing named below)."""

    kind: str  # struct, list or map
    parts: tuple[tuple[str, "Shape | None"], ...]

    def child(self, index: int) -> tuple[str | None, "Shape | None"]:
        if 0 <= index < len(self.parts):
            return self.parts[index]
        return None, None


def _shape(substrait_type: Message | None, names: Sequence[str], position: int) -> tuple[Shape | None, int]:
    """The shape of a field of this type whose nested names start at ``position``."""
    kind = substrait_type.WhichOneof("kind") if substrait_type is not None else None
    if kind == "struct":
        parts = []
        for child_type in substrait_type.struct.types:
            name = names[position] if position < len(names) else ""
            child, position = _shape(child_type, names, position + 1)
            parts.append((name, child))
        return Shape("struct", tuple(parts)), position
    if kind == "list":
        element, position = _shape(substrait_type.list.type, names, position)
        return (Shape("list", (("", element),)) if element is not None else None), position
    if kind == "map":
        key, position = _shape(substrait_type.map.key, names, position)
        value, position = _shape(substrait_type.map.value, names, position)
        return (Shape("map", (("key", key), ("value", value))) if key or value else None), position
    return None, position


def named_columns(schema: Message, path: str) -> list[tuple[str, Message | None, Shape | None]]:
    """The top-level (name, type, shape) of each field of a ``NamedStruct`` (a base or table
    schema)."""
    types = list(schema.struct.types)
    names = list(schema.names)
    if not types and names:
        # Producers that leave the types out: the names are then all top level.
        return [(n, None, None) for n in names]
    if top_level_names(names, types) is None:
        raise InvalidPlanError(path, f"{len(names)} name(s) for {len(types)} field(s): a schema names every field, "
                                     "nested ones included, depth first")
    out = []
    position = 0
    for field_type in types:
        name = names[position]
        shape, position = _shape(field_type, names, position + 1)
        out.append((name, field_type, shape))
    return out
