"""The sync keeps Python's cyclic collector off but while SQL is read in its own process
(``control/sync._collecting`` with ``rollup.collecting_while_reading``): the rollup's edges,
assets and statements hold no cycle, and the collector passed over them again and again as
they were made (a quarter of the rollup's CPU at 30,000 assets), while sqlglot's trees, which
do hold cycles, are still collected as each statement is read."""

from __future__ import annotations

import gc
from pathlib import Path

from prism_lineage.control import sync as sync_module
from prism_lineage.governance import rollup
from prism_lineage.governance.loading import load_project
from prism_lineage.governance.sql_reading import SqlReader

SHOP = Path(__file__).resolve().parents[2] / "examples" / "shop"


def test_the_collector_runs_only_while_sql_is_read_in_process(monkeypatch):
    project, _ = load_project(SHOP)
    seen: list[bool] = []
    read = SqlReader.read

    def watched(self, sql, dialect=None):
        seen.append(gc.isenabled())
        return read(self, sql, dialect)

    monkeypatch.setattr(SqlReader, "read", watched)
    was = gc.isenabled()
    gc.disable()  # as in a sync (``_collector_paused``)
    try:
        with sync_module._collecting():
            assert not gc.isenabled()
            lineage = rollup.sync(project)  # nothing read before: every statement read here
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.unfreeze()
        if was:
            gc.enable()
    assert seen and all(seen), seen  # on for every read, off between them
    assert lineage.edges
