"""The pass rebuilds the reads a worker sends back (``reading_pass._Shared``): the same reads
whether or not a chunk's repeated groups of links are found by identity (``_Shared.begin``)."""

import pickle

from prism_lineage.control.reading_pass import _Shared, pack
from prism_lineage.governance.sql_reading import ColumnLink, Dependency, StatementRead
from prism_lineage.governance.statuses import SqlStatus


def _read(key: str, source: str, columns: tuple[str, ...]) -> StatementRead:
    links = tuple(ColumnLink(f"{source}.{c}", c, "value", "identity", "exact") for c in columns)
    return StatementRead(key, None, (source,), ((source, links),), columns,
                         (Dependency(source, source, columns),))


def test_a_chunk_read_by_identity_gives_the_same_reads_as_one_read_at_a_time():
    reads = [_read(f"k{i}", f"s.t{i % 3}", ("a", "b", "c")[: 1 + i % 3]) for i in range(12)]
    reads.append(StatementRead("bad", SqlStatus.NOT_PARSED))
    # As a worker sends a chunk: each repeated group is one object, pickled once.
    chunk = pickle.loads(pickle.dumps([(i, pack(read), None) for i, read in enumerate(reads)]))
    alone, by_chunk = _Shared(), _Shared()
    expected = [alone.read(packed) for _, packed, _ in chunk]
    for _ in range(2):  # a second chunk: new objects, nothing kept from the first by identity
        chunk = pickle.loads(pickle.dumps([(i, pack(read), None) for i, read in enumerate(reads)]))
        by_chunk.begin(chunk)
        got = [by_chunk.read(packed) for _, packed, _ in chunk]
        assert got == expected == reads
    groups = {id(read.columns[0][1]) for read in got if read.columns and read.columns[0][0] == "s.t0"}
    assert len(groups) == 1  # one shared group for the statements that gave the same links
