"""The catalog: tables, their columns and types, as the user's schema document declares them.

Accepted shapes (JSON or YAML; see docs/schema.md):

* flat: ``{"db.sales.orders": {"id": "int", "amount": "decimal(10,2)"}}``
* nested: ``{"db": {"sales": {"orders": {"id": "int"}}}}``
* a document with a ``tables:`` key holding either of the above (other top-level keys
  are reserved for policies and checks);
* a column may be ``name: type``, a list of names (types unknown), or ``name: {type: …}``.

Names are matched the way SQL engines resolve them: the query's identifiers are normalised
by the dialect, then matched case-insensitively unless two declared names differ only by
case.  Answers spell tables and columns as the schema does.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import AmbiguousTableError, SchemaError
from .ir.origin import Origin


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    type: str | None = None
    spec: Mapping[str, Any] | None = None  # the column's full declaration, when it is a mapping


@dataclass(frozen=True, slots=True)
class Table:
    """A catalog table.  ``name`` is the dotted name as the schema spells it."""

    name: str
    parts: tuple[str, ...]
    columns: tuple[Column, ...]
    spec: Mapping[str, Any] | None = None
    _index: dict[str, list[Column]] = field(init=False, repr=False, compare=False)
    # Each column's position by name (the last one of a repeated name), for ordering the columns
    # a query reads as the table declares them: asked for every table read of every query.
    positions: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index: dict[str, list[Column]] = {}
        for column in self.columns:
            index.setdefault(column.name.lower(), []).append(column)
        object.__setattr__(self, "_index", index)
        object.__setattr__(self, "positions", {c.name: i for i, c in enumerate(self.columns)})

    def named(self, name: str, parts: tuple[str, ...]) -> "Table":
        """A table of these very columns under another name, sharing this one's indexes of them
        (never changed once built): no ``Column`` or index is built again for it."""
        table = object.__new__(Table)
        set_ = object.__setattr__
        set_(table, "name", name)
        set_(table, "parts", parts)
        set_(table, "columns", self.columns)
        set_(table, "spec", self.spec)
        set_(table, "_index", self._index)
        set_(table, "positions", self.positions)
        return table

    def has(self, lowered: str) -> bool:
        return lowered in self._index

    def column(self, normalized: str) -> Column | None:
        found = self._index.get(normalized.lower())
        if not found:
            return None
        if len(found) == 1:
            return found[0]
        for column in found:
            if column.name == normalized:
                return column
        return found[0]


class Catalog:
    """Tables by name; lookups match a query's (possibly partial) dotted name by suffix."""

    __slots__ = ("_by_last", "tables", "document", "strict")

    def __init__(self, tables: list[Table], document: Mapping[str, Any] | None = None, *, strict: bool = False):
        self.tables = tables
        self.document = document or {}
        # ``strict``: a query reading a table this (non-empty) catalog does not declare is refused,
        # instead of being read without a schema and said in ``uncertain`` (specs/uncertainty.md).
        self.strict = strict
        self._by_last: dict[str, list[Table]] = {}
        for table in tables:
            self._by_last.setdefault(table.parts[-1].lower(), []).append(table)

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any] | None, *, source: str = "schema") -> "Catalog":
        if mapping is None:
            return cls([])
        if isinstance(mapping, Catalog):
            return mapping
        if not isinstance(mapping, Mapping):
            raise SchemaError(f"{source}: expected a mapping of table names to columns, got {type(mapping).__name__}")
        document: Mapping[str, Any] = {}
        if "tables" in mapping and isinstance(mapping["tables"], Mapping) and not _is_column_map(mapping):
            document = mapping
            mapping = mapping["tables"]
        tables: list[Table] = []
        _collect_tables(mapping, (), tables, source)
        return cls(tables, document)

    def strictly(self) -> "Catalog":
        """The same tables, refusing a read of any other (``--strict``)."""
        return Catalog(self.tables, self.document, strict=True)

    def close_names(self, name: str, limit: int = 3) -> list[str]:
        """Declared table names that look like ``name`` (a typo's likely meaning)."""
        import difflib

        wanted = name.lower()
        by_key: dict[str, str] = {}
        for table in self.tables:
            by_key.setdefault(table.name.lower(), table.name)
            by_key.setdefault(table.parts[-1].lower(), table.name)
        found = difflib.get_close_matches(wanted, list(by_key), n=limit * 2, cutoff=0.6)
        found += difflib.get_close_matches(wanted.rpartition(".")[2], list(by_key), n=limit * 2, cutoff=0.6)
        return list(dict.fromkeys(by_key[k] for k in found))[:limit]

    def lookup(self, parts: tuple[str, ...], origin: Origin | None = None) -> Table | None:
        """The table whose dotted name ends with ``parts`` (already dialect-normalised)."""
        candidates = self._by_last.get(parts[-1].lower())
        if not candidates:
            return None
        wanted = tuple(p.lower() for p in parts)
        # The names match when one ends with the other: a query may name fewer parts than the
        # schema (``orders`` for ``shop.sales.orders``) or more (``prod.sales.orders`` when the
        # schema says ``sales.orders``: dbt's compiled SQL always names three parts).
        matches = [t for t in candidates if _same_tail(t.parts, wanted)]
        if len(matches) <= 1:
            return matches[0] if matches else None
        # The declared name that agrees with more of the query's parts is the one it means
        # (``sales.orders`` over ``orders`` for ``prod.sales.orders``).
        best = max(min(len(t.parts), len(wanted)) for t in matches)
        matches = [t for t in matches if min(len(t.parts), len(wanted)) == best]
        if len(matches) == 1:
            return matches[0]
        exact = [t for t in matches if t.parts[-len(parts):] == parts]
        if len(exact) == 1:
            return exact[0]
        # A shorter declared name that equals the query's name wins over longer ones it suffixes.
        whole = [t for t in matches if len(t.parts) == len(parts)]
        if len(whole) == 1:
            return whole[0]
        raise AmbiguousTableError(".".join(parts), sorted(t.name for t in matches), origin)


def _same_tail(declared: tuple[str, ...], wanted: tuple[str, ...]) -> bool:
    n = min(len(declared), len(wanted))
    return tuple(p.lower() for p in declared[-n:]) == wanted[-n:]


def _is_column_spec(value: Any) -> bool:
    return value is None or isinstance(value, str) or (isinstance(value, Mapping) and "type" in value)


def _is_column_map(value: Any) -> bool:
    return isinstance(value, (list, tuple)) or (
        isinstance(value, Mapping) and all(_is_column_spec(v) for v in value.values())
    )


def _collect_tables(node: Mapping[str, Any], prefix: tuple[str, ...], out: list[Table], source: str) -> None:
    for key, value in node.items():
        if not isinstance(key, str) or not key:
            raise SchemaError(f"{source}: table names must be non-empty strings, got {key!r}")
        parts = prefix + tuple(key.split("."))
        if isinstance(value, Mapping) and "columns" in value and _is_column_map(value["columns"]):
            out.append(Table(".".join(parts), parts, _columns(value["columns"], parts, source), value))
        elif _is_column_map(value):
            out.append(Table(".".join(parts), parts, _columns(value, parts, source)))
        elif isinstance(value, Mapping):
            _collect_tables(value, parts, out, source)
        else:
            raise SchemaError(
                f"{source}: '{'.'.join(parts)}' must map column names to types, got {type(value).__name__}"
            )


def _columns(value: Any, parts: tuple[str, ...], source: str) -> tuple[Column, ...]:
    if isinstance(value, (list, tuple)):
        names = value
        if not all(isinstance(n, str) for n in names):
            raise SchemaError(f"{source}: columns of '{'.'.join(parts)}' must be names")
        return tuple(Column(n) for n in names)
    columns = []
    for name, spec in value.items():
        if isinstance(spec, Mapping):
            columns.append(Column(str(name), _spec_type(spec), spec))
        else:
            columns.append(Column(str(name), _type_name(spec)))
    return _nested_entries(columns)


_BARE_STRUCT = {"STRUCT", "RECORD", "ROW", "OBJECT", None}


def _nested_entries(columns: list[Column]) -> tuple[Column, ...]:
    """``widget: struct`` with ``widget.asset.id: int`` beside it (DataHub's schemas declare
    nested fields so): the dotted entries are the fields of the struct column they start with."""
    roots = {c.name.lower(): c for c in columns if "." not in c.name}
    nested: dict[str, dict] = {}
    kept = []
    for column in columns:
        head, dot, rest = column.name.partition(".")
        root = roots.get(head.lower()) if dot else None
        if root is None or (root.type or "").upper() not in {t for t in _BARE_STRUCT if t}:
            kept.append(column)
            continue
        tree = nested.setdefault(root.name, {})
        *path, leaf = rest.split(".")
        for part in path:
            tree = tree.setdefault(part, {})
        tree[leaf] = column.type or "VARCHAR"
    if not nested:
        return tuple(columns)
    return tuple(Column(c.name, _struct_of(nested[c.name]), c.spec) if c.name in nested else c for c in kept)


def _struct_of(tree: dict) -> str:
    fields = [f"{name} {_struct_of(sub) if isinstance(sub, dict) else sub}" for name, sub in tree.items()]
    return f"STRUCT<{', '.join(fields)}>"


def _type_name(value: Any) -> str | None:
    if value is None:
        return None
    text = " ".join(str(value).split())
    # A nested type keeps the case of its field names (``STRUCT<sku VARCHAR>``): paths name them.
    if "<" in text or re.search(r"\b(struct|row|union)\s*\(", text, re.I):
        return text
    return text.upper()


def _spec_type(spec: Mapping[str, Any]) -> str | None:
    """A column declared as a mapping: its ``type``, with the declared shape of semi-structured
    data (``shape: STRUCT<…>`` or a JSON Schema under ``json_schema:``) as ``JSON<STRUCT<…>>``."""
    type_ = _type_name(spec.get("type"))
    shape = spec.get("shape")
    if shape is None and spec.get("json_schema") is not None:
        shape = _json_schema_type(spec["json_schema"])
    if shape is None:
        return type_
    return f"{type_ or 'JSON'}<{' '.join(str(shape).split())}>"


_JSON_SCALARS = {"string": "VARCHAR", "integer": "BIGINT", "number": "DOUBLE", "boolean": "BOOLEAN"}


def _json_schema_type(schema: Any) -> str:
    """A JSON Schema (``type``, ``properties``, ``items``) as a SQL type: objects are structs."""
    if isinstance(schema, str):
        return schema
    if not isinstance(schema, Mapping):
        return "JSON"
    kind = schema.get("type")
    if kind == "object" or (kind is None and "properties" in schema):
        fields = []
        for name, sub in (schema.get("properties") or {}).items():
            shown = name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(name)) else '"' + str(name) + '"'
            fields.append(f"{shown} {_json_schema_type(sub)}")
        return f"STRUCT<{', '.join(fields)}>" if fields else "JSON"
    if kind == "array":
        return f"ARRAY<{_json_schema_type(schema.get('items'))}>"
    return _JSON_SCALARS.get(str(kind), "JSON")


def load_schema(path: str | Path) -> Catalog:
    """Read a schema document (JSON or YAML) from ``path``."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SchemaError(f"schema file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise SchemaError(f"cannot read schema file {path}: {error}") from None
    return Catalog.from_mapping(parse_schema_text(text, str(path)), source=f"schema file {path}")


def parse_schema_text(text: str, source: str) -> Any:
    if source.endswith(".json"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            raise SchemaError(f"{source} is not valid JSON: {error}") from None
    import yaml  # JSON is YAML too, so this also reads .json files saved under other names

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or "syntax error"
        raise SchemaError(f"{source} is not valid YAML or JSON{where}: {problem}") from None
