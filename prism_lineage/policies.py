"""Declared row-access policies, masking policies and data-quality checks (docs/schema.md).

A schema document in the ``tables:`` form may list, beside its tables::

    policies:
      - name: region_rows            # optional
        table: orders
        row_access: "region IN (SELECT region FROM user_regions WHERE user_name = CURRENT_USER)"
      - name: email_mask
        table: customers
        column: email
        mask: "CASE WHEN CURRENT_ROLE() = 'PII_READER' THEN email ELSE SHA2(email) END"   # optional
    checks:
      - name: amount_not_negative    # optional
        table: orders
        predicate: "amount >= 0"

Predicates and masks are SQL in the dialect of the queries that read the table (or the
entry's own ``dialect:``).  A query reading ``orders`` gets ``policy`` lineage from the columns
the row-access predicate reads and ``quality`` lineage from those the checks read; a masked
column's values reach it through a ``mask`` transformation, with ``policy`` lineage from the
other columns the mask reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .catalog import Catalog, Table
from .errors import SchemaError


@dataclass(frozen=True, slots=True)
class RowAccessPolicy:
    name: str
    predicate: str
    dialect: str | None = None


@dataclass(frozen=True, slots=True)
class ColumnMask:
    name: str
    column: str  # as the schema spells it
    expression: str | None = None  # None: masked, by an expression not declared
    dialect: str | None = None


@dataclass(frozen=True, slots=True)
class QualityCheck:
    name: str
    predicate: str
    dialect: str | None = None


@dataclass(slots=True)
class TablePolicies:
    row_access: list[RowAccessPolicy] = field(default_factory=list)
    masks: dict[str, ColumnMask] = field(default_factory=dict)  # by lower-case column name
    checks: list[QualityCheck] = field(default_factory=list)


_CACHE: dict[int, tuple[Mapping, dict[str, TablePolicies]]] = {}


def policies_for(catalog: Catalog, table: Table) -> TablePolicies | None:
    """The policies and checks declared on ``table`` (``None``: none)."""
    document = getattr(catalog, "document", None) or {}
    if not document or ("policies" not in document and "checks" not in document):
        return None
    cached = _CACHE.get(id(document))
    if cached is None or cached[0] is not document:
        if len(_CACHE) > 64:
            _CACHE.clear()
        cached = (document, _index(document, getattr(catalog, "base", catalog)))
        _CACHE[id(document)] = cached
    return cached[1].get(table.name)


def _index(document: Mapping[str, Any], catalog: Catalog) -> dict[str, TablePolicies]:
    index: dict[str, TablePolicies] = {}
    for position, entry in enumerate(_entries(document, "policies")):
        where = f"schema: policies[{position}]"
        table = _table(entry, catalog, where)
        name = str(entry.get("name") or f"policy {position + 1}")
        dialect = entry.get("dialect")
        found = index.setdefault(table.name, TablePolicies())
        if "row_access" in entry:
            found.row_access.append(RowAccessPolicy(name, _sql(entry, "row_access", where), dialect))
        elif "column" in entry:
            column = table.column(str(entry["column"]))
            if column is None:
                raise SchemaError(f"{where}: masking policy {name!r} names column {entry['column']!r}, which "
                                  f"{table.name} does not have")
            mask = entry.get("mask")
            if mask is not None and not isinstance(mask, str):
                raise SchemaError(f"{where}: mask must be a SQL expression, got {type(mask).__name__}")
            found.masks[column.name.lower()] = ColumnMask(name, column.name, mask, dialect)
        else:
            raise SchemaError(f"{where}: a policy needs row_access (a predicate) or column (a masking policy)")
    for position, entry in enumerate(_entries(document, "checks")):
        where = f"schema: checks[{position}]"
        table = _table(entry, catalog, where)
        name = str(entry.get("name") or f"check {position + 1}")
        index.setdefault(table.name, TablePolicies()).checks.append(
            QualityCheck(name, _sql(entry, "predicate", where), entry.get("dialect")))
    return index


def _entries(document: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    entries = document.get(key) or []
    if not isinstance(entries, list) or not all(isinstance(e, Mapping) for e in entries):
        raise SchemaError(f"schema: {key} must be a list of entries, each naming its table")
    return entries


def _table(entry: Mapping[str, Any], catalog: Catalog, where: str) -> Table:
    name = entry.get("table")
    if not isinstance(name, str) or not name:
        raise SchemaError(f"{where}: the entry must name its table")
    table = catalog.lookup(tuple(name.split(".")))
    if table is None:
        raise SchemaError(f"{where}: table {name!r} is not declared in the schema")
    return table


def _sql(entry: Mapping[str, Any], key: str, where: str) -> str:
    text = entry.get(key)
    if not isinstance(text, str) or not text.strip():
        raise SchemaError(f"{where}: {key} must be a SQL predicate")
    return text
