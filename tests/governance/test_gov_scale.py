"""The rollup stays linear in what a project declares (issue 15 item 14, the pipeline part): a
pipeline of hundreds of assets that all write one table, each depending on the one before, was
cubic (500 assets: 69.5 s) because the reading order joined every writer of the table to every
other for each dependency.  Timings live in ``benchmarks/scale_governance.py``; here the work is
counted: the edges of the reading order, which must grow with the declarations, not their square."""

from __future__ import annotations

import sys

import networkx as nx

from gov_helpers import ROOT

if str(ROOT) not in sys.path:  # ``benchmarks`` is a folder of the repository, not installed
    sys.path.insert(0, str(ROOT))

from benchmarks.scale_governance import pipeline_fan_in, pipeline_one_table  # noqa: E402
from prism_lineage.governance.rollup import sync  # noqa: E402


def _order_edges(monkeypatch, project) -> int:
    added = [0]
    original = nx.DiGraph.add_edge

    def counted(self, *args, **kwargs):
        added[0] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(nx.DiGraph, "add_edge", counted)
    sync(project, budget=0)  # the order is worked out; no statement needs reading for it
    return added[0]


def test_the_reading_order_of_a_pipeline_writing_one_table_is_linear(monkeypatch):
    small, large = (_order_edges(monkeypatch, pipeline_one_table(n)) for n in (100, 400))
    assert large <= 4 * small + 8 and large <= 3 * 400  # four times the assets, four times the edges


def test_a_wide_depends_on_stays_linear(monkeypatch):
    small, large = (_order_edges(monkeypatch, pipeline_fan_in(n)) for n in (100, 400))
    assert large <= 4 * small + 8


def test_the_scale_families_are_what_they_say():
    lineage = sync(pipeline_one_table(5))
    # Five statements write s.t; the order between them is no edge (one table), their reads are.
    assert lineage.reads_performed == 5
    assert [(e.mark, lineage.assets[e.source].full_name, lineage.assets[e.target].full_name)
            for e in lineage.edges] == [("parsed", "s.src", "s.t")]
    fan_in = sync(pipeline_fan_in(4))
    declared = [e for e in fan_in.edges if e.mark == "declared"]
    assert sorted(fan_in.assets[e.source].full_name for e in declared) == ["s.t0", "s.t1", "s.t2"]
