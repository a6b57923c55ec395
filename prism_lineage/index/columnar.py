"""The two large tables of a full sync's epoch, built column by column from the rollup's objects.

``compile/statements`` (a row per statement read: its links, and every column of each table it
looked up) and ``parse/edges`` (a row per edge, with its column links) are most of an epoch.
Built as rows of nested dicts and converted by pyarrow, each value is made twice (the dict, then
the Arrow value) and pyarrow imports pandas to ask whether its input is a pandas object.  Here
each nested list is laid out as Arrow holds it — the offsets of each row's items and one flat
list per field of the items — and every leaf list is converted once, by ``pyarrow.array`` when it
is long (``BULK_VALUES``) and from buffers (``arrow_rows.column``) otherwise.

The rollup shares its objects: a warehouse's edges and reads hold a few distinct column links
millions of times, and the reads of a pass share their dependencies (``reading_pass._Shared``).
So the items of a table are laid out in one pass first (``_Layout``): every distinct link and
dependency (by identity: the objects stay alive while the table is written) is met once and
numbered, and each row holds only the numbers of its links and dependencies, found by compiled
code (``map`` over ``id``).  Each distinct object is converted once, and each row group takes
its rows' items from those arrays (Arrow's ``take``, compiled), instead of one Python value per
field per item.  A small table (``BULK_VALUES``, with ``pyarrow.compute`` not yet imported)
gathers its items in Python instead, so that a sync writing a few rows never imports it.

``tests/control/test_arrow_rows.py`` checks both against the tables of dict rows
(``ledger.statement_rows``, ``writer._edge_row``) that the other writers still build.
"""

from __future__ import annotations

import datetime
import sys
from array import array
from collections.abc import Iterator
from itertools import accumulate
from operator import attrgetter

import pyarrow as pa

from .arrow_rows import _stamped
from .arrow_rows import column as _column
from .tables import COLUMN_LINK

# A leaf list at least this long is converted by ``pyarrow.array`` (compiled, five to eight times
# faster than ``arrow_rows.column``; it imports pandas once, which only a large epoch pays).
BULK_VALUES = 20_000


def column(kind: pa.DataType, values: list) -> pa.Array:
    """A leaf array (strings, booleans) of ``values``: the same array either way (``pyarrow.array``
    also for a short list once pandas is imported: its only cost was that import)."""
    if len(values) >= BULK_VALUES or "pandas" in sys.modules:
        return pa.array(values, type=kind)
    return _column(kind, values)


def statements_table(schema: pa.Schema, items: list[tuple], *, stamp: datetime.datetime) -> pa.Table:
    """``compile/statements`` rows of ``items``: ``(asset id, StatementRead)``, or ``(asset id,
    None)`` for a group's tombstone — the table ``ledger.statement_rows``/``tombstone`` give."""
    return next(statements_tables(schema, items, stamp=stamp, group_rows=max(len(items), 1), empty=True))


def edges_table(schema: pa.Schema, items: list[tuple], *, stamp: datetime.datetime) -> pa.Table:
    """``parse/edges`` rows of ``items``: ``(target id, LineageEdge)``, or ``(target id, None)``
    for a group's tombstone — the table ``writer._edge_row``/``_tombstone`` give."""
    return next(edges_tables(schema, items, stamp=stamp, group_rows=max(len(items), 1), empty=True))


def _compiled(n: int) -> bool:
    """Whether ``n`` items are gathered by Arrow's ``take`` (compiled) rather than in Python: for
    many items, or once ``pyarrow.compute`` is imported anyway (``pyarrow.array`` imports pandas,
    which imports it)."""
    return n >= BULK_VALUES or "pyarrow.compute" in sys.modules


class _Distinct:
    """Distinct objects (or sequences of objects: ``number_of``) numbered in the order first met,
    by identity — the caller keeps them alive while the numbers are used — and the Arrow array
    of them, made once (``build``)."""

    __slots__ = ("objects", "number", "_array", "_build")

    def __init__(self, build):
        self.objects: list = []
        self.number: dict = {}  # id(object), or the ids of a sequence's objects -> place in ``objects``
        self._array = None
        self._build = build  # objects -> their Arrow array

    def extend(self, numbers: array, objects) -> None:
        """Append the numbers of ``objects`` to ``numbers``, numbering the new ones."""
        start = len(numbers)
        try:  # every object already met: compiled code only
            numbers.extend(map(self.number.__getitem__, map(id, objects)))
        except KeyError:
            del numbers[start:]
            number, known = self.number, self.objects
            for item in objects:
                found = number.get(id(item))
                if found is None:
                    found = number[id(item)] = len(known)
                    known.append(item)
                numbers.append(found)

    def number_of(self, sequence: tuple) -> int:
        """The number of ``sequence``: the same for every sequence of the same objects."""
        key = tuple(map(id, sequence))
        found = self.number.get(key)
        if found is None:
            found = self.number[key] = len(self.objects)
            self.objects.append(sequence)
        return found

    def gather(self, numbers: array) -> pa.Array:
        """The array of the objects numbered ``numbers``, in that order."""
        if _compiled(len(numbers)):
            if self._array is None:
                self._array = self._build(self.objects)
            return self._array.take(pa.Array.from_buffers(pa.int32(), len(numbers), [None, pa.py_buffer(numbers)]))
        objects = self.objects
        return self._build([objects[i] for i in numbers])


_LINK_LISTS = pa.list_(COLUMN_LINK)


def _link_lists(sequences: list) -> pa.Array:
    """The ``list<COLUMN_LINK>`` array of sequences of ``ColumnLink`` objects."""
    links = [link for sequence in sequences for link in sequence]
    offsets = array("i", [0])
    offsets.extend(accumulate(map(len, sequences)))
    return _list(_LINK_LISTS, offsets, _struct(COLUMN_LINK, len(links), {
        "from": column(pa.string(), [link.source for link in links]),
        "to": column(pa.string(), [link.target for link in links]),
        "relationship": column(pa.string(), [link.relationship for link in links]),
        "transformation": column(pa.string(), [link.transformation for link in links]),
        "confidence": column(pa.string(), [link.confidence for link in links])}))


def _dependency_array(kind: pa.DataType, dependencies: list) -> pa.Array:
    """The ``DEPENDENCY`` struct array of ``Dependency`` objects."""
    addresses, addresses_at, resolved, columns_known = [], array("i", [0]), [], []
    names, types, columns_at = [], [], array("i", [0])
    for dependency in dependencies:
        addresses.extend(dependency.address)
        addresses_at.append(len(addresses))
        resolved.append(dependency.resolved)
        seen = dependency.columns
        columns_known.append(seen is not None)
        if seen:
            seen_names, seen_types = zip(*seen)
            names.extend(seen_names)
            types.extend(seen_types)
        columns_at.append(len(names))
    seen_kind = kind.field("columns").type.value_type
    return _struct(kind, len(dependencies), {
        "address": _list(kind.field("address").type, addresses_at, column(pa.string(), addresses)),
        "resolved": column(pa.string(), resolved),
        "columns_known": column(pa.bool_(), columns_known),
        "columns": _list(kind.field("columns").type, columns_at,
                         _struct(seen_kind, len(names), {"name": column(pa.string(), names),
                                                         "type": column(pa.string(), types)}))})


def statements_tables(schema: pa.Schema, items: list[tuple], *, stamp: datetime.datetime,
                      group_rows: int, empty: bool = False) -> Iterator[pa.Table]:
    """``statements_table`` of ``items``, ``group_rows`` rows at a time (for no items, none, or
    one empty table when ``empty``)."""
    fields = {f.name: f.type for f in schema}
    link_kind = fields["links"].value_type
    dependency_kind = fields["dependencies"].value_type
    # A read's links are its entries' (one entry per asset it read: the name, the links), in order.
    found = _Distinct(_link_lists)
    dependencies = _Distinct(lambda seen: _dependency_array(dependency_kind, seen))
    assets, keys, statuses, known = [], [], [], []
    reads, reads_at = [], array("i", [0])
    entry_names, entry_numbers, entries_at, links_at = [], array("i"), array("i", [0]), array("i", [0])
    outputs, outputs_at = [], array("i", [0])
    dependency_numbers, dependencies_at = array("i"), array("i", [0])
    number_of = found.number_of
    links = 0
    for asset, read in items:
        assets.append(asset)
        if read is None:
            keys.append(None)
            statuses.append(None)
            known.append(False)
        else:
            keys.append(read.key)
            statuses.append(read.status._value_ if read.status else None)
            reads.extend(read.reads)
            for name, entry in read.columns:
                entry_names.append(name)
                entry_numbers.append(number_of(entry))
                links += len(entry)
            known.append(read.outputs is not None)
            if read.outputs:
                outputs.extend(read.outputs)
            dependencies.extend(dependency_numbers, read.dependencies)
        reads_at.append(len(reads))
        entries_at.append(len(entry_names))
        links_at.append(links)
        outputs_at.append(len(outputs))
        dependencies_at.append(len(dependency_numbers))
    for start in range(0, max(len(assets), int(empty)), group_rows):
        end = min(start + group_rows, len(assets))
        first, last = entries_at[start], entries_at[end]
        entries = found.gather(entry_numbers[first:last])
        linked = entries.flatten()
        names = column(pa.string(), entry_names[first:last])
        if _compiled(len(linked)):
            import pyarrow.compute

            link_asset = names.take(pyarrow.compute.list_parent_indices(entries))
        else:
            counts = entries.value_lengths().to_pylist()
            link_asset = column(pa.string(), [name for name, n in zip(entry_names[first:last], counts)
                                              for _ in range(n)])
        link_children = {"asset": link_asset}
        link_children.update((f.name, linked.field(f.name)) for f in link_kind if f.name != "asset")
        arrays = {
            "asset_id": column(pa.string(), assets[start:end]),
            "statement_key": column(pa.string(), keys[start:end]),
            "status": column(pa.string(), statuses[start:end]),
            "reads": _list(fields["reads"], _rebased(reads_at, start, end),
                           column(pa.string(), reads[reads_at[start]:reads_at[end]])),
            "links": _list(fields["links"], _rebased(links_at, start, end),
                           _struct(link_kind, len(linked), link_children)),
            "outputs_known": column(pa.bool_(), known[start:end]),
            "outputs": _list(fields["outputs"], _rebased(outputs_at, start, end),
                             column(pa.string(), outputs[outputs_at[start]:outputs_at[end]])),
            "dependencies": _list(fields["dependencies"], _rebased(dependencies_at, start, end),
                                  dependencies.gather(dependency_numbers[dependencies_at[start]:dependencies_at[end]])),
        }
        yield _table(schema, arrays, end - start, stamp)


def edges_tables(schema: pa.Schema, items: list[tuple], *, stamp: datetime.datetime,
                 group_rows: int, empty: bool = False) -> Iterator[pa.Table]:
    """``edges_table`` of ``items``, ``group_rows`` rows at a time (as ``statements_tables``)."""
    edges = [edge for _, edge in items]
    targets = [target if edge is None else edge.target for target, edge in items]
    sources = [None if edge is None else edge.source for edge in edges]
    marks = [None if edge is None else edge.mark._value_ for edge in edges]
    vias = [None if edge is None else edge.via._value_ for edge in edges]
    files = [None if edge is None else edge.file for edge in edges]
    notes = [None if edge is None else edge.note for edge in edges]
    revisions = [None if edge is None else edge.revision for edge in edges]
    # An edge's column links as one list: a warehouse's edges hold few distinct lists.
    found = _Distinct(_link_lists)
    number_of = found.number_of
    link_numbers = array("i", [number_of(() if edge is None else edge.columns or ()) for edge in edges])
    for start in range(0, max(len(edges), int(empty)), group_rows):
        end = min(start + group_rows, len(edges))
        arrays = {
            "target_id": column(pa.string(), targets[start:end]), "source_id": column(pa.string(), sources[start:end]),
            "mark": column(pa.string(), marks[start:end]), "via": column(pa.string(), vias[start:end]),
            "file": column(pa.string(), files[start:end]), "columns": found.gather(link_numbers[start:end]),
            "note": column(pa.string(), notes[start:end]), "revision": column(pa.string(), revisions[start:end]),
        }
        yield _table(schema, arrays, end - start, stamp)


# The columns of ``parse/nodes``, ``compile/reads`` and ``lineage/nodes`` as the rollup's ``Asset``
# holds them (``writer._node_row``/``_read_row`` build the same values as dict rows).
_ASSET_COLUMNS = {
    "asset_id": attrgetter("id"), "full_name": attrgetter("full_name"), "namespace": attrgetter("namespace"),
    "name": attrgetter("name"), "kind": attrgetter("kind"), "owner": attrgetter("owner"),
    "steward": attrgetter("steward"), "certified": attrgetter("certified"), "file": attrgetter("file"),
    "aliases": attrgetter("aliases"), "alias_ranks": attrgetter("alias_ranks"), "notes": attrgetter("notes"),
    "sql_read_from": attrgetter("sql_read_from"),
}


def assets_tables(schema: pa.Schema, assets: list, *, stamp: datetime.datetime, group_rows: int,
                  empty: bool = False) -> Iterator[pa.Table]:
    """Rows of ``parse/nodes``, ``compile/reads`` or ``lineage/nodes`` (``schema`` says which
    columns) of the rollup's ``Asset`` objects, ``group_rows`` at a time (as ``statements_tables``):
    no dict per row."""
    for tables in assets_tables_together((schema,), assets, stamp=stamp, group_rows=group_rows, empty=empty):
        yield tables[0]


def assets_tables_together(schemas: tuple[pa.Schema, ...], assets: list, *, stamp: datetime.datetime,
                           group_rows: int, empty: bool = False) -> Iterator[tuple[pa.Table, ...]]:
    """``assets_tables`` of each of ``schemas`` over the same assets, a row group of each at a
    time: a column two schemas share (``lineage/nodes`` holds every other one's) is converted
    once per row group, the same array in both."""
    from .epochs import BULK_ROWS

    for start in range(0, max(len(assets), int(empty)), group_rows):
        part = assets[start:start + group_rows]
        convert = (lambda kind, values: pa.array(values, type=kind)) if len(part) >= BULK_ROWS else _column
        arrays = {}
        for schema in schemas:
            for f in schema:
                if f.name == "ingested_at" or f.name in arrays:
                    continue
                if f.name == "sql_status":
                    values = [None if s is None else s._value_ for s in map(attrgetter("sql_status"), part)]
                elif f.name == "read_notes":
                    values = [[{"text": n.text, "mentions": list(n.mentions)} for n in notes] if notes else []
                              for notes in map(attrgetter("read_notes"), part)]
                else:
                    values = list(map(_ASSET_COLUMNS[f.name], part))
                arrays[f.name] = convert(f.type, values)
        yield tuple(_table(schema, arrays, len(part), stamp) for schema in schemas)


def _rebased(offsets: array, start: int, end: int) -> array:
    """The offsets of rows ``start:end`` as a list column of those rows alone holds them."""
    first = offsets[start]
    part = offsets[start:end + 1]
    return part if first == 0 else array("i", [o - first for o in part])


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
