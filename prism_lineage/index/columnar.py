"""The two large tables of a full sync's epoch, built column by column from the rollup's objects.

``compile/statements`` (a row per statement read: its links, and every column of each table it
looked up) and ``parse/edges`` (a row per edge, with its column links) are most of an epoch.
Built as rows of nested dicts and converted by pyarrow, each value is made twice (the dict, then
the Arrow value) and pyarrow imports pandas to ask whether its input is a pandas object.  Here
each nested list is laid out as Arrow holds it — the offsets of each row's items and one flat
list per field of the items — and every leaf list is converted once, by ``pyarrow.array`` when it
is long (``BULK_VALUES``) and from buffers (``arrow_rows.column``) otherwise.

``tests/control/test_arrow_rows.py`` checks both against the tables of dict rows
(``ledger.statement_rows``, ``writer._edge_row``) that the other writers still build.
"""

from __future__ import annotations

import datetime
from array import array

import pyarrow as pa

from .arrow_rows import _stamped
from .arrow_rows import column as _column

# A leaf list at least this long is converted by ``pyarrow.array`` (compiled, five to eight times
# faster than ``arrow_rows.column``; it imports pandas once, which only a large epoch pays).
BULK_VALUES = 20_000


def column(kind: pa.DataType, values: list) -> pa.Array:
    """A leaf array (strings, booleans) of ``values``: the same array either way."""
    if len(values) >= BULK_VALUES:
        return pa.array(values, type=kind)
    return _column(kind, values)


def statements_table(schema: pa.Schema, items: list[tuple], *, stamp: datetime.datetime) -> pa.Table:
    """``compile/statements`` rows of ``items``: ``(asset id, StatementRead)``, or ``(asset id,
    None)`` for a group's tombstone — the table ``ledger.statement_rows``/``tombstone`` give."""
    assets, keys, statuses, known = [], [], [], []
    reads, reads_at = [], array("i", [0])
    link_asset, link_from, link_to, link_relationship, link_transformation, link_confidence = [], [], [], [], [], []
    links_at = array("i", [0])
    outputs, outputs_at = [], array("i", [0])
    addresses, addresses_at, resolved, columns_known = [], array("i", [0]), [], []
    names, types, columns_at = [], [], array("i", [0])
    dependencies_at = array("i", [0])
    for asset, read in items:
        assets.append(asset)
        if read is None:
            keys.append(None)
            statuses.append(None)
            known.append(False)
        else:
            keys.append(read.key)
            statuses.append(read.status.value if read.status else None)
            reads.extend(read.reads)
            for name, found in read.columns:
                for link in found:
                    link_asset.append(name)
                    link_from.append(link.source)
                    link_to.append(link.target)
                    link_relationship.append(link.relationship)
                    link_transformation.append(link.transformation)
                    link_confidence.append(link.confidence)
            known.append(read.outputs is not None)
            if read.outputs:
                outputs.extend(read.outputs)
            for dependency in read.dependencies:
                addresses.extend(dependency.address)
                addresses_at.append(len(addresses))
                resolved.append(dependency.resolved)
                seen = dependency.columns
                columns_known.append(seen is not None)
                if seen:
                    for name, type_ in seen:
                        names.append(name)
                        types.append(type_)
                columns_at.append(len(names))
        reads_at.append(len(reads))
        links_at.append(len(link_asset))
        outputs_at.append(len(outputs))
        dependencies_at.append(len(resolved))
    n = len(assets)
    fields = {f.name: f.type for f in schema}
    link_kind = fields["links"].value_type
    link_values = {"asset": link_asset, "from": link_from, "to": link_to, "relationship": link_relationship,
                   "transformation": link_transformation, "confidence": link_confidence}
    dependency_kind = fields["dependencies"].value_type
    seen_kind = dependency_kind.field("columns").type.value_type
    dependency_children = {
        "address": _list(dependency_kind.field("address").type, addresses_at, column(pa.string(), addresses)),
        "resolved": column(pa.string(), resolved),
        "columns_known": column(pa.bool_(), columns_known),
        "columns": _list(dependency_kind.field("columns").type, columns_at,
                         _struct(seen_kind, len(names), {"name": column(pa.string(), names),
                                                         "type": column(pa.string(), types)})),
    }
    arrays = {
        "asset_id": column(pa.string(), assets),
        "statement_key": column(pa.string(), keys),
        "status": column(pa.string(), statuses),
        "reads": _list(fields["reads"], reads_at, column(pa.string(), reads)),
        "links": _list(fields["links"], links_at,
                       _struct(link_kind, len(link_asset), {f.name: column(f.type, link_values[f.name])
                                                            for f in link_kind})),
        "outputs_known": column(pa.bool_(), known),
        "outputs": _list(fields["outputs"], outputs_at, column(pa.string(), outputs)),
        "dependencies": _list(fields["dependencies"], dependencies_at,
                              _struct(dependency_kind, len(resolved), dependency_children)),
    }
    return _table(schema, arrays, n, stamp)


def edges_table(schema: pa.Schema, items: list[tuple], *, stamp: datetime.datetime) -> pa.Table:
    """``parse/edges`` rows of ``items``: ``(target id, LineageEdge)``, or ``(target id, None)``
    for a group's tombstone — the table ``writer._edge_row``/``_tombstone`` give."""
    targets, sources, marks, vias, files, notes, revisions = [], [], [], [], [], [], []
    link_from, link_to, link_relationship, link_transformation, link_confidence = [], [], [], [], []
    links_at = array("i", [0])
    for target, edge in items:
        if edge is None:
            targets.append(target)
            sources.append(None)
            marks.append(None)
            vias.append(None)
            files.append(None)
            notes.append(None)
            revisions.append(None)
        else:
            targets.append(edge.target)
            sources.append(edge.source)
            marks.append(edge.mark.value)
            vias.append(edge.via.value)
            files.append(edge.file)
            notes.append(edge.note)
            revisions.append(edge.revision)
            for link in edge.columns or ():
                link_from.append(link.source)
                link_to.append(link.target)
                link_relationship.append(link.relationship)
                link_transformation.append(link.transformation)
                link_confidence.append(link.confidence)
        links_at.append(len(link_from))
    fields = {f.name: f.type for f in schema}
    link_kind = fields["columns"].value_type
    link_values = {"from": link_from, "to": link_to, "relationship": link_relationship,
                   "transformation": link_transformation, "confidence": link_confidence}
    arrays = {
        "target_id": column(pa.string(), targets), "source_id": column(pa.string(), sources),
        "mark": column(pa.string(), marks), "via": column(pa.string(), vias), "file": column(pa.string(), files),
        "columns": _list(fields["columns"], links_at,
                         _struct(link_kind, len(link_from), {f.name: column(f.type, link_values[f.name])
                                                             for f in link_kind})),
        "note": column(pa.string(), notes), "revision": column(pa.string(), revisions),
    }
    return _table(schema, arrays, len(targets), stamp)


def _list(kind: pa.DataType, offsets: array, child: pa.Array) -> pa.Array:
    """A list column with no NULL list: row i holds ``child[offsets[i]:offsets[i + 1]]``."""
    if offsets[-1] >= 2**31:
        raise OverflowError("a list column of more than 2**31 items")
    return pa.Array.from_buffers(kind, len(offsets) - 1, [None, pa.py_buffer(offsets)], null_count=0,
                                 children=[child])


def _struct(kind: pa.DataType, n: int, children: dict[str, pa.Array]) -> pa.Array:
    """A struct column with no NULL struct, from one array per field."""
    return pa.Array.from_buffers(kind, n, [None], null_count=0, children=[children[f.name] for f in kind])


def _table(schema: pa.Schema, arrays: dict[str, pa.Array], n: int, stamp: datetime.datetime) -> pa.Table:
    return pa.Table.from_arrays([_stamped(f.type, stamp, n) if f.name == "ingested_at" else arrays[f.name]
                                 for f in schema], schema=schema)
