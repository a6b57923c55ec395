"""The read ledger as rows of ``compile/statements``, and back.

A sync re-reads a statement only when its SQL changed or an address it looked up now resolves
differently (``governance/rollup.py``); what it needs for that is the ledger: for each statement
read, by the key of its SQL and dialect, what reading it gave (its status, the declared assets
it reads with the column links from each, its output columns) and what it depended on (each
address looked up, what that resolved to, the columns seen there).  The index keeps it grouped
by the asset the statements write, so the next sync — another process, another day — starts
from it and reads only what changed.

A group read back compares equal to the same group from a sync (``StatementRead`` equality): the
writer's delta compares the two, and builds rows only for the groups that changed.
"""

from __future__ import annotations

from collections.abc import Iterable

import pyarrow as pa

from ..governance.rollup import EnvironmentLineage
from ..governance.sql_reading import ColumnLink, Dependency, StatementRead
from ..governance.statuses import SqlStatus
from .state import columns, list_column, shared_links, struct_fields


def statement_groups(lineage: EnvironmentLineage) -> dict[str, tuple[StatementRead, ...]]:
    """Each asset's statement reads, in key order, for the assets that have any."""
    read = lineage.ledger.__getitem__
    return {asset: tuple(map(read, sorted(keys))) for asset, keys in lineage.ledger_by_asset.items() if keys}


def ledger_of(groups: dict[str, tuple[StatementRead, ...]]) -> tuple[dict[str, StatementRead],
                                                                       dict[str, tuple[str, ...]]]:
    """The ledger (by statement key) and, for each asset, the keys of its statements."""
    ledger: dict[str, StatementRead] = {}
    by_asset: dict[str, tuple[str, ...]] = {}
    for asset, reads in sorted(groups.items()):
        by_asset[asset] = tuple(read.key for read in reads)
        for read in reads:
            ledger.setdefault(read.key, read)
    return ledger, by_asset


def statement_rows(asset: str, reads: Iterable[StatementRead]) -> list[dict]:
    """The rows of one asset's group, as written."""
    return [_row(asset, read) for read in reads]


def tombstone(asset: str) -> dict:
    """The one row of a group that became empty: no statement of the asset is read any more."""
    return {"asset_id": asset, "statement_key": None, "status": None, "reads": [], "links": [],
            "outputs_known": False, "outputs": [], "dependencies": []}


def grouped(rows: Iterable[dict]) -> dict[str, list[dict]]:
    """Rows as dicts, by asset and in key order (a group's tombstone holds nothing): the table as
    it is stored, for looking at it."""
    groups: dict[str, list[dict]] = {}
    for row in rows:
        row = {k: v for k, v in row.items() if k != "ingested_at"}
        group = groups.setdefault(row["asset_id"], [])
        if row["statement_key"] is not None:
            group.append(row)
    for group in groups.values():
        group.sort(key=lambda r: r["statement_key"])
    return {asset: group for asset, group in groups.items() if group}


def reads_by_asset(table: pa.Table) -> dict[str, tuple[StatementRead, ...]]:
    """``compile/statements`` (its current rows) as each asset's statement reads, in key order."""
    if table.num_rows == 0:
        return {}
    assets, keys, statuses, known = columns(table, "asset_id", "statement_key", "status", "outputs_known")
    read_offsets, read_values = list_column(table.column("reads"))
    read_names = read_values.to_pylist()
    output_offsets, output_values = list_column(table.column("outputs"))
    output_names = output_values.to_pylist()
    link_offsets, link_values = list_column(table.column("links"))
    links, (link_assets,) = shared_links(link_values, extra=("asset",))
    dependency_offsets, dependencies = _dependencies(table.column("dependencies"))
    groups: dict[str, list[StatementRead]] = {}
    for i, key in enumerate(keys):
        group = groups.setdefault(assets[i], [])
        if key is None:
            continue  # a group's tombstone: nothing of the asset is read
        reads = tuple(read_names[read_offsets[i]:read_offsets[i + 1]])
        per_asset: dict[str, list[ColumnLink]] = {name: [] for name in reads}
        for j in range(link_offsets[i], link_offsets[i + 1]):
            per_asset[link_assets[j]].append(links[j])
        outputs = tuple(output_names[output_offsets[i]:output_offsets[i + 1]]) if known[i] else None
        group.append(StatementRead(key, SqlStatus(statuses[i]) if statuses[i] else None, reads,
                                   tuple((name, tuple(found)) for name, found in per_asset.items()), outputs,
                                   tuple(dependencies[dependency_offsets[i]:dependency_offsets[i + 1]])))
    return {asset: tuple(sorted(group, key=lambda r: r.key)) for asset, group in groups.items() if group}


def _dependencies(column) -> tuple[list[int], list[Dependency]]:
    """The flattened dependencies of every row, with each row's offsets into them; equal column
    lists one shared tuple."""
    offsets, values = list_column(column)
    if len(values) == 0:
        return offsets, []
    fields = dict(zip((f.name for f in values.type), values.flatten()))
    resolved, known = fields["resolved"].to_pylist(), fields["columns_known"].to_pylist()
    address_offsets, address_parts = list_column(fields["address"])
    parts = address_parts.to_pylist()
    column_offsets, seen_columns = list_column(fields["columns"])
    names, types = struct_fields(seen_columns, "name", "type")
    pairs = list(zip(names, types))
    shared: dict[tuple, tuple] = {}
    found = []
    for j in range(len(resolved)):
        seen = None
        if known[j]:
            seen = tuple(pairs[column_offsets[j]:column_offsets[j + 1]])
            seen = shared.setdefault(seen, seen)
        found.append(Dependency(tuple(parts[address_offsets[j]:address_offsets[j + 1]]), resolved[j], seen))
    return offsets, found


def _row(asset: str, read: StatementRead) -> dict:
    return {
        "asset_id": asset, "statement_key": read.key, "status": read.status.value if read.status else None,
        "reads": list(read.reads),
        "links": [{"asset": name, "from": link.source, "to": link.target, "relationship": link.relationship,
                   "transformation": link.transformation, "confidence": link.confidence}
                  for name, links in read.columns for link in links],
        "outputs_known": read.outputs is not None, "outputs": list(read.outputs or ()),
        "dependencies": [{"address": list(d.address), "resolved": d.resolved, "columns_known": d.columns is not None,
                          "columns": [{"name": name, "type": type_} for name, type_ in d.columns or ()]}
                         for d in read.dependencies],
    }


def scope_ledger_blob(overrides) -> bytes:
    """A scope's own reads (``rollup.ScopeOverrides``) as ``compile/statements`` rows in one
    Parquet blob (the current store keeps it; see control/store.py)."""
    import io

    import pyarrow.parquet as pq

    from .tables import STATEMENTS

    rows = []
    for asset, keys in sorted(overrides.ledger_by_asset.items()):
        rows.extend(statement_rows(asset, [overrides.ledger[k] for k in sorted(keys)]))
    columns = {f.name: [row.get(f.name) for row in rows] for f in STATEMENTS.schema if f.name != "ingested_at"}
    schema = pa.schema([f for f in STATEMENTS.schema if f.name != "ingested_at"])
    buffer = io.BytesIO()
    pq.write_table(pa.Table.from_pydict(columns, schema=schema), buffer)
    return buffer.getvalue()


def scope_ledger_of(key: str, blob: bytes):
    """The ``ScopeOverrides`` (its ledger only) a blob of ``scope_ledger_blob`` holds."""
    import io

    import pyarrow.parquet as pq

    from ..governance.rollup import ScopeOverrides

    ledger, by_asset = ledger_of(reads_by_asset(pq.read_table(io.BytesIO(blob))))
    return ScopeOverrides(key, ledger=ledger, ledger_by_asset=by_asset)
