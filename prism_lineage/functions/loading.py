"""Reading user function facts from a YAML or JSON document (``--functions FILE``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..lineage.kinds import Confidence, Transformation
from .registry import FunctionInfo, FunctionKind

_KEYS = {"transformation", "confidence", "value_args", "control_args", "kind", "deterministic", "doc",
         "keeps_paths", "outputs"}


def read_document(path: str | Path) -> tuple[Any, str]:
    from ..catalog import parse_schema_text

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"functions file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read functions file {path}: {getattr(error, 'strerror', None) or error}") from None
    source = f"functions file {path}"
    return parse_schema_text(text, str(path)), source


def infos_from_document(document: Any, source: str) -> list[FunctionInfo]:
    """``{"functions": {name: facts}}`` (or the mapping of names itself) → ``FunctionInfo``s."""
    entries = document.get("functions", document) if isinstance(document, Mapping) else None
    if not isinstance(entries, Mapping):
        raise InputError(f"{source}: expected a mapping of function names to their lineage facts")
    return [_info(str(name), spec, source) for name, spec in entries.items()]


def _info(name: str, spec: Any, source: str) -> FunctionInfo:
    where = f"{source}: function '{name}'"
    spec = spec or {}
    if not isinstance(spec, Mapping):
        raise InputError(f"{where} must map to its facts, got {type(spec).__name__}")
    unknown = sorted(set(spec) - _KEYS)
    if unknown:
        raise InputError(f"{where}: unknown key {unknown[0]!r}; known keys: {', '.join(sorted(_KEYS))}")
    return FunctionInfo(
        name.lower(),
        _choice(Transformation, spec.get("transformation", "expression"), "transformation", where),
        _choice(Confidence, spec.get("confidence", "exact"), "confidence", where),
        _args(spec.get("value_args"), "value_args", where),
        _choice(FunctionKind, spec.get("kind", "scalar"), "kind", where).value,
        _flag(spec.get("deterministic", True), "deterministic", where),
        spec.get("doc"),
        _args(spec.get("control_args"), "control_args", where) or (),
        _flag(spec.get("keeps_paths", False), "keeps_paths", where),
        _names(spec.get("outputs"), where),
    )


def _choice(enum, value: Any, key: str, where: str):
    try:
        return enum(str(value).lower())
    except ValueError:
        allowed = ", ".join(member.value for member in enum)
        raise InputError(f"{where}: {key} {value!r} is not one of {allowed}") from None


def _args(value: Any, key: str, where: str) -> tuple[int | str, ...] | None:
    if value is None:
        return None
    items = value if isinstance(value, list) else [value]
    out: list[int | str] = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (int, str)) or (isinstance(item, int) and item < 0):
            raise InputError(f"{where}: {key} lists argument positions (0, 1 …) or parameter names, got {item!r}")
        out.append(item)
    return tuple(out)


def _flag(value: Any, key: str, where: str) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"{where}: {key} must be true or false, got {value!r}")
    return value


def _names(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise InputError(f"{where}: outputs must be a list of column names")
    return tuple(value)
