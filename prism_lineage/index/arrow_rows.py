"""Arrow tables from Python rows without ``pyarrow.array``: built from buffers.

``pyarrow.array`` (and ``Table.from_pylist``, ``pa.scalar``, ``Schema.empty_table``) asks
whether its input is a pandas object first, which imports pandas when it is installed — about a
second, which a sync that writes a few rows (nothing changed, one statement changed) must not
pay.  The index's schemas use few types (strings, booleans, 32-bit integers, UTC timestamps,
lists and structs of them), so their arrays are assembled here from their buffers: offsets,
validity bitmaps and values, the layout Arrow documents.  tests/index/test_arrow_rows.py checks
every schema against ``Table.from_pylist`` on generated rows.
"""

from __future__ import annotations

import datetime
from array import array
from itertools import accumulate

import pyarrow as pa


def table(schema: pa.Schema, rows: list[dict], *, stamp: datetime.datetime | None = None) -> pa.Table:
    """``schema``'s table of ``rows`` (a missing key is None), as ``Table.from_pylist`` builds it;
    with ``stamp``, every row's ``ingested_at`` is that moment (the rows are not copied)."""
    columns = [_stamped(f.type, stamp, len(rows)) if stamp is not None and f.name == "ingested_at"
               else column(f.type, [row.get(f.name) for row in rows]) for f in schema]
    return pa.Table.from_arrays(columns, schema=schema)


def _stamped(kind: pa.DataType, stamp: datetime.datetime, n: int) -> pa.Array:
    """``n`` times the same moment: converted once (an alive file holds every asset id, 100,000
    rows at warehouse scale, all stamped alike)."""
    if pa.types.is_timestamp(kind) and kind.unit == "us":
        return pa.Array.from_buffers(kind, n, [None, pa.py_buffer(array("q", [_micros(stamp)]) * n)], null_count=0)
    return column(kind, [stamp] * n)


def bulk_table(schema: pa.Schema, rows: list[dict], *, stamp: datetime.datetime | None = None) -> pa.Table:
    """``table``, converted by ``pyarrow.array`` (compiled, several times faster on thousands of
    rows, but it imports pandas on first use: see the module)."""
    n = len(rows)
    columns = [pa.array([stamp] * n if stamp is not None and f.name == "ingested_at"
                        else [row.get(f.name) for row in rows], type=f.type) for f in schema]
    return pa.Table.from_arrays(columns, schema=schema)


def column(kind: pa.DataType, values: list) -> pa.Array:
    n = len(values)
    validity, nulls = _validity(values)
    if pa.types.is_string(kind):
        encoded = [b"" if v is None else v.encode("utf-8") for v in values]
        offsets = array("i", [0])
        offsets.extend(accumulate(map(len, encoded)))
        if offsets[-1] >= 2**31:
            raise OverflowError("a string column larger than 2 GiB")
        return pa.Array.from_buffers(kind, n, [validity, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))],
                                     null_count=nulls)
    if pa.types.is_boolean(kind):
        return pa.Array.from_buffers(kind, n, [validity, _bits([bool(v) for v in values])], null_count=nulls)
    if pa.types.is_int32(kind):
        return pa.Array.from_buffers(kind, n, [validity, pa.py_buffer(array("i", [v or 0 for v in values]))],
                                     null_count=nulls)
    if pa.types.is_int64(kind):
        return pa.Array.from_buffers(kind, n, [validity, pa.py_buffer(array("q", [v or 0 for v in values]))],
                                     null_count=nulls)
    if pa.types.is_timestamp(kind) and kind.unit == "us":
        return pa.Array.from_buffers(kind, n, [validity, pa.py_buffer(array("q", [_micros(v) for v in values]))],
                                     null_count=nulls)
    if pa.types.is_list(kind):
        offsets = array("i", [0])
        offsets.extend(accumulate(0 if v is None else len(v) for v in values))
        flat = [item for v in values if v is not None for item in v]
        child = column(kind.value_type, flat)
        return pa.Array.from_buffers(kind, n, [validity, pa.py_buffer(offsets)], null_count=nulls, children=[child])
    if pa.types.is_struct(kind):
        children = [column(f.type, [None if v is None else v.get(f.name) for v in values]) for f in kind]
        return pa.Array.from_buffers(kind, n, [validity], null_count=nulls, children=children)
    raise TypeError(f"no builder for {kind}")  # a new type in a schema: add it here, with its test


def _validity(values: list) -> tuple[pa.Buffer | None, int]:
    nulls = sum(1 for v in values if v is None)
    if not nulls:
        return None, 0
    return _bits([v is not None for v in values]), nulls


def _bits(flags: list[bool]) -> pa.Buffer:
    """Least-significant bit first, as Arrow lays bitmaps out."""
    packed = bytearray((len(flags) + 7) // 8)
    for i, flag in enumerate(flags):
        if flag:
            packed[i >> 3] |= 1 << (i & 7)
    return pa.py_buffer(bytes(packed))


_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def _micros(value) -> int:
    if value is None:
        return 0
    if value.tzinfo is None:
        value = value.replace(tzinfo=datetime.timezone.utc)
    delta = value - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
