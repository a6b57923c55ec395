"""Nested and semi-structured values in dataframe plans: what a declared type says about a path.

A column's declared type (``STRUCT(sku VARCHAR, qty INT)``, ``INT[]``, ``MAP(VARCHAR, INT)``,
``ARRAY<STRUCT<…>>`` — read with sqlglot, the project's SQL type parser) decides whether a path
into it is known: a path the type declares is **exact**; a path into a value whose type is not
declared, or into JSON / VARIANT / text, is **conservative** with the reason.  A path the
declared type rules out (a struct field it does not have, an index into a struct) is an
error at the call that wrote it.

Paths are rendered in the IR's syntax (specs/nested.md): ``.name`` a struct field or JSON key,
``[0]`` an element by position, ``['k']`` a map value by key, ``[]`` every element.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp
from sqlglot.errors import SqlglotError

from ..ir import Origin
from .errors import FrameStatementError, unknown_field

_SEMI_STRUCTURED = {exp.DataType.Type.JSON, exp.DataType.Type.JSONB, exp.DataType.Type.VARIANT,
                    exp.DataType.Type.OBJECT}
_ARRAYS = {exp.DataType.Type.ARRAY, exp.DataType.Type.LIST}


def parse_type(declared: str | None) -> exp.DataType | None:
    """The declared type as sqlglot reads it (``None`` when unknown or unreadable)."""
    if not declared:
        return None
    # Angle-bracket types (``STRUCT<a: INT>``) are Spark/BigQuery syntax; parentheses DuckDB's.
    dialect = "spark" if "<" in declared else "duckdb"
    try:
        return exp.DataType.build(declared, dialect=dialect)
    except (SqlglotError, ValueError):
        return None


def type_text(dtype: exp.DataType | None) -> str | None:
    return dtype.sql(dialect="duckdb").upper() if dtype is not None else None


def is_array(dtype: exp.DataType | None) -> bool:
    return dtype is not None and dtype.this in _ARRAYS


def is_map(dtype: exp.DataType | None) -> bool:
    return dtype is not None and dtype.this is exp.DataType.Type.MAP


def is_semi_structured(dtype: exp.DataType | None) -> bool:
    return dtype is not None and (dtype.this in _SEMI_STRUCTURED or dtype.this in exp.DataType.TEXT_TYPES)


def element_types(dtype: exp.DataType) -> list[exp.DataType]:
    return [e for e in dtype.expressions if isinstance(e, exp.DataType)]


@dataclass(frozen=True, slots=True)
class PathFacts:
    """What the declared type says about a path: the IR steps, whether the path is exact (and
    why not), and the type of the value read."""

    steps: tuple[str, ...]
    exact: bool
    reason: str | None
    type: str | None


def struct_path(base: str, declared: str | None, path: tuple[str | int, ...], origin: Origin | None) -> PathFacts:
    """``col(base)["a"][0]…``: fields of structs, elements of arrays, values of maps."""
    dtype = parse_type(declared)
    if dtype is None:
        return PathFacts(_plain_steps(path), False,
                         f"the type of {base} is not declared, so the part {_shown(base, path)} is not known to exist",
                         None)
    if is_semi_structured(dtype):
        raise FrameStatementError(
            f"{base} is {type_text(dtype)}, not a struct: read a path in it with .json('$.…')", origin=origin
        )
    steps, final = _walk(base, dtype, path, origin)
    return PathFacts(steps, True, None, type_text(final))


def json_path(base: str, declared: str | None, path: tuple[str | int, ...], origin: Origin | None) -> PathFacts:
    """``col(base).json("$.a[0]")``: exact only where a declared nested type lists the path."""
    dtype = parse_type(declared)
    if dtype is not None and not is_semi_structured(dtype) and (dtype.expressions or dtype.this in _ARRAYS):
        steps, final = _walk(base, dtype, path, origin)
        return PathFacts(steps, True, None, type_text(final))
    return PathFacts(_plain_steps(path), False,
                     f"the shape of the semi-structured value {base} is not declared: the part "
                     f"{_shown(base, path)} is assumed to come from it", None)


def _walk(base: str, dtype: exp.DataType, path: tuple[str | int, ...],
          origin: Origin | None) -> tuple[tuple[str, ...], exp.DataType | None]:
    steps: list[str] = []
    current: exp.DataType | None = dtype
    for position, step in enumerate(path):
        where = _shown(base, path[:position])
        if current is None:
            steps.append(_plain_step(step))
            continue
        if current.this is exp.DataType.Type.STRUCT:
            if not isinstance(step, str):
                raise FrameStatementError(f"{where} is a struct: read a field by name, not position {step}",
                                          origin=origin)
            fields = {_field_name(f).lower(): f for f in current.expressions}
            found = fields.get(step.lower())
            if found is None:
                raise unknown_field(step, where, [_field_name(f) for f in current.expressions], origin)
            steps.append(f".{step}")
            current = found.args.get("kind") if isinstance(found, exp.ColumnDef) else None
        elif current.this in _ARRAYS:
            if not isinstance(step, int):
                raise FrameStatementError(
                    f"{where} is an array: take an element by position ([0]) or explode it first", origin=origin
                )
            steps.append(f"[{step}]")
            inner = element_types(current)
            current = inner[0] if inner else None
        elif current.this is exp.DataType.Type.MAP:
            steps.append(f"['{step}']" if isinstance(step, str) else f"[{step}]")
            inner = element_types(current)
            current = inner[1] if len(inner) == 2 else None
        else:
            raise FrameStatementError(f"{where} is {type_text(current)}: it has no part {_plain_step(step)}",
                                      origin=origin)
    return tuple(steps), current


def _field_name(field_: exp.Expression) -> str:
    return field_.name


def _plain_step(step: str | int) -> str:
    return f"[{step}]" if isinstance(step, int) else f".{step}"


def _plain_steps(path: tuple[str | int, ...]) -> tuple[str, ...]:
    return tuple(_plain_step(s) for s in path)


def _shown(base: str, path: tuple[str | int, ...]) -> str:
    return base + "".join(_plain_steps(path))


@dataclass(frozen=True, slots=True)
class ExplodeShape:
    """What exploding a value gives, by its declared type."""

    is_map: bool
    element_type: str | None
    key_type: str | None
    exact: bool
    reason: str | None


def explode_shape(value: str, declared: str | None, origin: Origin | None) -> ExplodeShape:
    """An array gives its elements, a map its keys and values (exact, typed); a value whose type
    is not declared (or JSON) is assumed to hold an array: conservative, with the reason."""
    dtype = parse_type(declared)
    if is_array(dtype):
        inner = element_types(dtype)  # type: ignore[arg-type]
        return ExplodeShape(False, type_text(inner[0]) if inner else None, None, True, None)
    if is_map(dtype):
        inner = element_types(dtype)  # type: ignore[arg-type]
        key, item = (inner + [None, None])[:2] if len(inner) == 2 else (None, None)
        return ExplodeShape(True, type_text(item), type_text(key), True, None)
    if dtype is None or is_semi_structured(dtype):
        what = "is not declared" if dtype is None else f"is {type_text(dtype)}"
        return ExplodeShape(False, None, None, False,
                            f"the type of {value} {what}: the elements of {value} are assumed to come from all of it")
    raise FrameStatementError(f"cannot explode {value}: its type {type_text(dtype)} is neither an array nor a map",
                              origin=origin)
