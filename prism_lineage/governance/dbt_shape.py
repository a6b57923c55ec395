"""The shape of what ``dbt.py`` reads from a manifest and a catalog, checked before anything is
built from it (issue 10 item 4): a manifest that dbt did not write as dbt writes it (a key
missing, a value of another type) is refused with one line naming the file and the key —
``target/manifest.json: nodes['model.shop.orders'].config.materialized must be text, got a
number`` — never an internal error.

Only what the loader reads is checked, and only for the nodes it reads (models, snapshots,
seeds, sources, enabled or not): a test node, a macro or a doc may hold anything.  ``None`` is
accepted wherever dbt writes ``null`` for "not set".
"""

from __future__ import annotations

from typing import Any

from ..terminal import printable
from .errors import ProjectError

TEXT, BOOLEAN, NUMBER, MAPPING, LIST = "text", "true or false", "a number", "a mapping", "a list"
_READ_KINDS = ("model", "snapshot", "seed")

# key -> (expected, required); "nullable" below means None is accepted.
_NODE = {
    "resource_type": (TEXT, True), "name": (TEXT, True), "unique_id": (TEXT, True),
    "database": (TEXT, False), "schema": (TEXT, False), "alias": (TEXT, False),
    "original_file_path": (TEXT, False), "relation_name": (TEXT, False), "language": (TEXT, False),
    "raw_code": (TEXT, False), "compiled_code": (TEXT, False), "config": (MAPPING, False),
    "depends_on": (MAPPING, False), "columns": (MAPPING, False), "meta": (MAPPING, False),
}
_SOURCE = {
    "resource_type": (TEXT, False), "name": (TEXT, True), "unique_id": (TEXT, False),
    "source_name": (TEXT, True), "database": (TEXT, False), "schema": (TEXT, False),
    "identifier": (TEXT, False), "original_file_path": (TEXT, False), "relation_name": (TEXT, False),
    "config": (MAPPING, False), "columns": (MAPPING, False), "meta": (MAPPING, False),
}
_CONFIG = {"enabled": (BOOLEAN, False), "materialized": (TEXT, False), "meta": (MAPPING, False)}
_COLUMN = {"name": (TEXT, False), "data_type": (TEXT, False), "description": (TEXT, False)}
_CATALOG_COLUMN = {"name": (TEXT, True), "type": (TEXT, False), "index": (NUMBER, False)}
_METADATA = {"adapter_type": (TEXT, False), "project_name": (TEXT, False)}


def _kind_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, (int, float)):
        return NUMBER
    if isinstance(value, str):
        return TEXT
    if isinstance(value, dict):
        return MAPPING
    if isinstance(value, list):
        return LIST
    return type(value).__name__


def _is(value: Any, expected: str) -> bool:
    return _kind_of(value) == expected


def _where(path: tuple) -> str:
    """A key path as a user finds it in the JSON: ``nodes['model.a.b'].config.materialized``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif out and ("." in part or not part.isidentifier()):
            out += f"[{part!r}]"
        else:
            out += f".{part}" if out else part
    return printable(out)


def _refuse(file: str, path: tuple, message: str) -> None:
    raise ProjectError(f"{printable(file)}: {_where(path)} {message}")


def _fields(document: dict, spec: dict, file: str, path: tuple) -> None:
    for key, (expected, required) in spec.items():
        if key not in document or document[key] is None:
            if required:
                _refuse(file, path, f"lacks '{key}', which dbt writes for every such node")
            continue
        if not _is(document[key], expected):
            _refuse(file, (*path, key), f"must be {expected}, got {_kind_of(document[key])}")


def _mapping_of_mappings(value: Any, file: str, path: tuple) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        _refuse(file, path, f"must be {MAPPING}, got {_kind_of(value)}")
    for key, entry in value.items():
        if not isinstance(entry, dict):
            _refuse(file, (*path, key), f"must be {MAPPING}, got {_kind_of(entry)}")
    return value


def check_manifest(document: Any, file: str) -> None:
    """Refuses (``ProjectError``, file and key named) a manifest the loader cannot read as dbt
    writes it."""
    if not isinstance(document, dict):
        raise ProjectError(f"{printable(file)}: expected a JSON object, got {_kind_of(document)}")
    metadata = document.get("metadata")
    if metadata is not None:
        if not isinstance(metadata, dict):
            _refuse(file, ("metadata",), f"must be {MAPPING}, got {_kind_of(metadata)}")
        _fields(metadata, _METADATA, file, ("metadata",))
    for key, node in _mapping_of_mappings(document.get("nodes"), file, ("nodes",)).items():
        kind = node.get("resource_type")
        if kind is not None and not isinstance(kind, str):
            _refuse(file, ("nodes", key, "resource_type"), f"must be {TEXT}, got {_kind_of(kind)}")
        if kind in _READ_KINDS:
            _node(node, _NODE, file, ("nodes", key))
    for key, node in _mapping_of_mappings(document.get("sources"), file, ("sources",)).items():
        _node(node, _SOURCE, file, ("sources", key))


def _node(node: dict, spec: dict, file: str, path: tuple) -> None:
    _fields(node, spec, file, path)
    config = node.get("config")
    if config is not None:
        _fields(config, _CONFIG, file, (*path, "config"))
    depends_on = node.get("depends_on")
    if depends_on is not None:
        found = depends_on.get("nodes")
        if found is not None and not isinstance(found, list):
            _refuse(file, (*path, "depends_on", "nodes"), f"must be {LIST}, got {_kind_of(found)}")
        for i, entry in enumerate(found or ()):
            if not isinstance(entry, str):
                _refuse(file, (*path, "depends_on", "nodes", i), f"must be {TEXT}, got {_kind_of(entry)}")
    for name, column in _mapping_of_mappings(node.get("columns"), file, (*path, "columns")).items():
        _fields(column, _COLUMN, file, (*path, "columns", name))


def check_catalog(document: Any, file: str) -> None:
    """Refuses a catalog whose nodes' columns the loader cannot read."""
    if not isinstance(document, dict):
        raise ProjectError(f"{printable(file)}: expected a JSON object, got {_kind_of(document)}")
    for part in ("nodes", "sources"):
        for key, entry in _mapping_of_mappings(document.get(part), file, (part,)).items():
            columns = _mapping_of_mappings(entry.get("columns"), file, (part, key, "columns"))
            for name, column in columns.items():
                _fields(column, _CATALOG_COLUMN, file, (part, key, "columns", name))
