"""``benchmarks/governance_bench.py --mode index-sync`` works on a small project (its timings are
never asserted): the three syncs through the index read every statement, one, then none — in
process and through the command."""

from __future__ import annotations

import sys

from gov_helpers import ROOT

if str(ROOT) not in sys.path:  # ``benchmarks`` is a folder of the repository, not installed
    sys.path.insert(0, str(ROOT))

from benchmarks.governance_bench import run_index_sync  # noqa: E402


def test_index_sync_mode_reads_every_statement_then_one_then_none():
    figures = run_index_sync(300, seed=3, cli=True)
    statements = figures["statements"]
    for where in (figures, figures["cli"]):
        assert [where[k]["statements_read"] for k in ("full_sync_empty_index", "one_statement_changed",
                                                      "nothing_changed")] == [statements, 1, 0]
    assert 0 < figures["ledger_bytes_on_disk"] < figures["bytes_on_disk"]
