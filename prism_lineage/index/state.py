"""What the index holds at its newest committed epoch, as the rollup's own objects.

The rollup read back from the index (``EpochIndex.lineage``) and the writer's delta (what the
next epoch must change) both start from it.  It is read from Arrow column by column — one
Python list per column, nested lists flattened with their offsets — never a Python dict per
row and struct, which costs several times more on a large environment.  Column links, which
repeat across edges, are shared objects.
"""

from __future__ import annotations

from operator import attrgetter

from collections.abc import Iterable
from dataclasses import dataclass

import pyarrow as pa

from ..governance.rollup import Asset, LineageEdge, ReadNote
from ..governance.sql_reading import ColumnLink, StatementRead
from ..governance.statuses import Mark, SqlStatus, Via
from .reader import IndexReader
from .tables import EDGES, MERGED_NODES, STATEMENTS

LINK_FIELDS = ("from", "to", "relationship", "transformation", "confidence")


@dataclass(frozen=True, slots=True)
class IndexState:
    """``assets``: the alive nodes with their compiled fields; ``edges``: each alive target's
    incoming edges (a group's tombstone holds none), in ``edge_groups`` order; ``statements``:
    each asset's statement reads in key order (None when they were not read)."""

    epochs: tuple[int, ...]
    assets: dict[str, Asset]
    edges: dict[str, tuple[LineageEdge, ...]]
    statements: dict[str, tuple[StatementRead, ...]] | None


def read_state(reader: IndexReader, *, with_statements: bool = True) -> IndexState:
    from .ledger import reads_by_asset

    statements = reads_by_asset(reader.latest_table(STATEMENTS, prune=("asset_id",))) if with_statements else None
    return IndexState(tuple(reader.committed()), _assets(reader.latest_table(MERGED_NODES, prune=("asset_id",))),
                      _edges(reader.latest_table(EDGES, prune=("target_id",))), statements)


def edge_groups(edges: Iterable[LineageEdge]) -> dict[str, tuple[LineageEdge, ...]]:
    """Edges by target, each group in one order, so that two groups compare as equal sets."""
    groups: dict[str, list[LineageEdge]] = {}
    for edge in edges:
        groups.setdefault(edge.target, []).append(edge)
    order = attrgetter("source", "mark", "via", "file")
    return {target: tuple(sorted(group, key=order)) if len(group) > 1 else tuple(group)
            for target, group in groups.items()}


def columns(table: pa.Table, *names: str) -> list[list]:
    """Plain columns as Python lists."""
    return [table.column(name).to_pylist() for name in names]


def list_column(array: pa.ChunkedArray | pa.Array) -> tuple[list[int], pa.Array]:
    """A list column as offsets (from 0) into its flattened values."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks else pa.array([], type=array.type)
    offsets = array.offsets.to_pylist()
    base = offsets[0] if offsets else 0
    return [o - base for o in offsets] or [0], array.flatten()


def struct_fields(array: pa.Array, *names: str) -> list[list]:
    """The fields of a struct array as Python lists (the array's own offset applied)."""
    fields = dict(zip((f.name for f in array.type), array.flatten()))
    return [fields[name].to_pylist() for name in names]


def shared_links(values: pa.Array, *, extra: tuple[str, ...] = ()) -> tuple[list[ColumnLink], list[list]]:
    """The column links of a flattened list of link structs, equal links one shared object;
    with the ``extra`` fields' values."""
    found = struct_fields(values, *LINK_FIELDS, *extra)
    seen: dict[tuple, ColumnLink] = {}
    links = []
    for key in zip(*found[:len(LINK_FIELDS)]):
        link = seen.get(key)
        if link is None:
            link = seen[key] = ColumnLink(*key)
        links.append(link)
    return links, found[len(LINK_FIELDS):]


def _assets(table: pa.Table) -> dict[str, Asset]:
    found = {}
    rows = zip(*columns(table, "asset_id", "full_name", "namespace", "name", "kind", "owner", "steward", "certified",
                        "file", "aliases", "sql_status", "sql_read_from", "alias_ranks", "notes", "read_notes"))
    for (identifier, full_name, namespace, name, kind, owner, steward, certified, file, aliases, status,
         read_from, ranks, notes, read_notes) in rows:
        found[identifier] = Asset(identifier, full_name, namespace, name, kind, owner, steward, bool(certified), file,
                                  tuple(aliases), SqlStatus(status) if status else None, read_from,
                                  tuple(ranks or ()), tuple(notes or ()),
                                  tuple(ReadNote(n["text"], tuple(n["mentions"] or ())) for n in read_notes or ()))
    return found


def _edges(table: pa.Table) -> dict[str, tuple[LineageEdge, ...]]:
    if table.num_rows == 0:
        return {}
    targets, sources, marks, vias, files, notes, revisions = columns(table, "target_id", "source_id", "mark", "via",
                                                                     "file", "note", "revision")
    offsets, values = list_column(table.column("columns"))
    links, _ = shared_links(values)
    edges = []
    for i, source in enumerate(sources):
        if source is None:
            continue  # a group's tombstone: it emptied
        mark = Mark(marks[i])
        traced = None if mark is Mark.DECLARED else tuple(links[offsets[i]:offsets[i + 1]])
        edges.append(LineageEdge(source, targets[i], mark, Via(vias[i]), files[i], traced, notes[i], revisions[i]))
    return edge_groups(edges)
