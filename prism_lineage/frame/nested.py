"""Nested and semi-structured values in dataframe plans: what a declared type says about a path.

Types are read with the SQL frontend's type reader (``frontends/sql/nested.py``: sqlglot's
``DataType`` for ``STRUCT(…)``, ``STRUCT<…>``, ``INT[]``, ``ARRAY<…>``, ``MAP(…)``, ``ROW(…)``,
and declared JSON shapes ``JSON<STRUCT<…>>``), so a path reads the same from both frontends:

* a path the declared type has: exact (``nested_access``; ``semi_structured_access`` inside a
  declared JSON shape);
* a path into a value whose type is not declared: ``nested_access``, conservative;
* a path into JSON / VARIANT (or text read as JSON) without a declared shape, or outside it:
  ``semi_structured_access``, conservative;

with the same reasons the SQL frontend gives.  What the declared type rules out (a struct field
it does not have, a part of a number) is an error at the call that wrote it.  Paths are rendered
in the IR's syntax (``NestedAccess``): ``.name``, ``[0]`` (positions count from 0), ``['k']``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..frontends.sql.nested import SEMI, UNKNOWN, Step, TypeInfo, render, type_info
from ..ir import Origin
from .errors import FrameStatementError, unknown_field


@dataclass(frozen=True, slots=True)
class PathFacts:
    """What the declared type says about a path: the IR steps, the access kind, whether the
    path is exact (and why not), and the type of the value read."""

    steps: tuple[str, ...]
    semi_structured: bool
    exact: bool
    reason: str | None
    type: str | None


def path_facts(label: str, declared: str | None, path: tuple[str | int, ...], *, json: bool,
               origin: Origin | None) -> PathFacts:
    """``label`` (of type ``declared``) read at ``path``; ``json``: written as a JSON path."""
    info = type_info(declared)
    if info.kind == "scalar" and json:
        info = SEMI  # JSON held as text: a path into it is semi-structured
    if info.kind == "scalar":
        raise FrameStatementError(f"{label} is {info.sql()}: it has no part {_shown('', path)}", origin=origin)
    rendered: list[str] = []
    semi = json or info.kind == "semi"
    why: str | None = None  # undeclared, outside, unchecked: why the path is not exact
    for position, written in enumerate(path):
        step = Step(name=written) if isinstance(written, str) else Step(position=written)
        where = _shown(label, path[:position])
        if info.kind == "semi":
            semi = True
            if info.shape is None:
                rendered.append(render(step, "semi", info))
                why = why or "undeclared"
                continue
            before = info.shape
            info, step = _into(before, step, where, origin, inside_shape=True)
            rendered.append(render(step, before.kind, before))
            if not info.known:
                why, info = why or "outside", SEMI
            elif info.kind in ("struct", "array", "map"):
                info = TypeInfo("semi", None, info)  # still JSON, with the declared shape below
            continue
        if not info.known or info.kind == "scalar":
            if info.kind == "scalar":
                raise FrameStatementError(f"{where} is {info.sql()}: it has no part {_shown('', (written,))}",
                                          origin=origin)
            rendered.append(render(step, "unknown", info))
            why = why or ("undeclared" if semi else "unchecked")
            continue
        before = info
        info, step = _into(before, step, where, origin)
        rendered.append(render(step, before.kind, before))
    shown = label + "".join(rendered)
    reason = {
        None: None,
        "undeclared": f"{shown} reads semi-structured data whose shape is not declared",
        "outside": f"{shown} is outside the declared shape of {label}",
        "unchecked": f"the type of {label} is not declared, so the path {shown} is not checked",
    }[why]
    return PathFacts(tuple(rendered), semi, why is None, reason, _result_type(info, semi))


def _into(info: TypeInfo, step: Step, where: str, origin: Origin | None,
          inside_shape: bool = False) -> tuple[TypeInfo, Step]:
    """The type one step reaches, and the step as the type spells it."""
    if step.position is not None:
        if info.kind == "struct":
            raise FrameStatementError(f"{where} is a struct: read a field by name, not position {step.position}",
                                      origin=origin)
        return (info.value() if info.kind == "map" else info.element() if info.kind in ("array", "semi")
                else UNKNOWN), step
    assert step.name is not None
    if info.kind == "map":
        return info.value(), step
    if info.kind == "array":
        raise FrameStatementError(f"{where} is an array: take an element by position ([0]) or explode it first",
                                  origin=origin)
    if info.kind == "struct":
        found = info.field(step.name)
        if found is None:
            if inside_shape:
                return UNKNOWN, step  # outside a declared JSON shape: not exact, not an error
            raise unknown_field(step.name, where, info.field_names(), origin)
        return found[1], Step(name=found[0])
    return (SEMI if info.kind == "semi" else UNKNOWN), step


def _result_type(info: TypeInfo, semi: bool) -> str | None:
    if info.known and info.kind != "semi":
        return info.sql()
    if info.kind == "semi" and info.shape is not None:
        return info.sql()
    return "JSON" if semi else None


def _shown(base: str, path: tuple[str | int, ...]) -> str:
    return base + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in path)


# --- explode -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExplodeShape:
    """What exploding a value gives, by its declared type."""

    is_map: bool
    element_type: str | None
    key_type: str | None


def explode_shape(value: str, declared: str | None, origin: Origin | None) -> ExplodeShape:
    """An array gives its elements, a map its keys and values; a value whose type is not
    declared (or JSON) is read as an array.  Either way each element comes from the value, as
    the SQL frontend's ``UNNEST`` has it: exact.  A declared scalar has no elements: an error."""
    info = type_info(declared)
    if info.kind == "map":
        return ExplodeShape(True, _known(info.value()), _known(info.key()))
    if info.kind == "scalar":
        raise FrameStatementError(f"cannot explode {value}: its type {info.sql()} is neither an array nor a map",
                                  origin=origin)
    if info.kind == "struct":
        raise FrameStatementError(f"cannot explode {value}: it is a struct, not an array or a map", origin=origin)
    return ExplodeShape(False, _known(info.element()), None)


def _known(info: TypeInfo) -> str | None:
    return info.sql() if info.known else None
