"""``benchmarks/governance_bench.py --mode control-plane`` works on a small project (its timings are
never asserted): the full syncs read every statement, the next one none, the one after a
one-statement change one; the store answers every sampled asset."""

from __future__ import annotations

import sys

from gov_helpers import ROOT

if str(ROOT) not in sys.path:  # ``benchmarks`` is a folder of the repository, not installed
    sys.path.insert(0, str(ROOT))

from benchmarks.governance_bench import run_control_plane  # noqa: E402


def test_control_plane_mode_reads_every_statement_then_none_then_one():
    figures = run_control_plane(300, seed=3, samples=3, jobs=("1", "2"), baseline_sample=50)
    for jobs in ("1", "2"):
        full = figures[f"full_sync_jobs_{jobs}"]
        assert full["statements_read"] >= figures["statements"] * 0.8 and full["failed"] == 0
        # The tree's memory counts each shared page once: never below the sync's own share of it,
        # never above the sum of the RSS figures (where /proc is there to sample it).
        if full["peak_pss_tree_mb"] is not None:
            assert 0 < full["peak_pss_tree_mb"] <= full["peak_rss_mb"] + 3 * full["peak_rss_worker_mb"] + 50
    assert figures["nothing_changed_sync"]["statements_read"] == 0
    assert figures["one_statement_changed_sync"]["statements_read"] == 1
    assert figures["api_in_process"]["answers_each"] == figures["cli_whole_process"]["answers_each"] == 3
    assert figures["baseline_sqlglot_parse_qualify"]["failed"] == 0


def test_pairs_alternate_their_order_and_give_the_median_of_their_ratios():
    figures = run_control_plane(200, seed=4, samples=2, jobs=("2",), baseline_sample=30, cli_answers=False,
                                pairs=3)
    pairs = figures["pairs"]
    assert [p["order"] for p in pairs["pairs"]] == ["sync, baseline", "baseline, sync", "sync, baseline"]
    ratios = sorted(p["wall_over_baseline_per_core"] for p in pairs["pairs"])
    assert all(r > 0 for r in ratios)
    assert pairs["median_wall_over_baseline_per_core"] == ratios[1]
    assert (pairs["min"], pairs["max"]) == (ratios[0], ratios[-1])
    for pair in pairs["pairs"]:
        assert pair["sync_wall_s"] > 0 and pair["baseline_cpu_s"] > 0


def test_a_negative_number_of_pairs_is_refused_in_one_line(capsys):
    import pytest

    from benchmarks.governance_bench import main

    with pytest.raises(SystemExit) as exited:
        main(["--mode", "control-plane", "--assets", "10", "--pairs", "-1"])
    assert exited.value.code == 2
    assert "--pairs must be 0 or more, not -1" in capsys.readouterr().err
