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


def test_pairs_time_the_baseline_around_the_sync_and_give_the_median_of_their_ratios():
    figures = run_control_plane(200, seed=4, samples=2, jobs=("2",), baseline_sample=30, cli_answers=False,
                                pairs=3)
    pairs = figures["pairs"]
    assert [p["order"] for p in pairs["pairs"]] == ["baseline half, sync, baseline half"] * 3
    ratios = sorted(p["wall_over_baseline_per_core"] for p in pairs["pairs"])
    assert all(r > 0 for r in ratios)
    assert pairs["median_wall_over_baseline_per_core"] == ratios[1]
    assert (pairs["min"], pairs["max"]) == (ratios[0], ratios[-1])
    for pair in pairs["pairs"]:
        assert pair["sync_wall_s"] > 0 and pair["baseline_cpu_s_before"] > 0 and pair["baseline_cpu_s_after"] > 0
        # The two halves (15 statements each, scaled) together are the pair's whole baseline.
        halves = (pair["baseline_cpu_s_before"] + pair["baseline_cpu_s_after"]) / 2
        assert abs(pair["baseline_cpu_s"] - halves) <= 0.01 + 0.001 * halves


def test_a_baseline_in_parts_times_each_statement_of_its_sample_once(tmp_path):
    from benchmarks.governance_bench import _baseline, _sync_process, generate, write_native

    project = generate(120, 5)
    write_native(project, tmp_path / "project")
    _sync_process(tmp_path / "project", tmp_path / "index", "1")
    whole = _baseline(project, tmp_path / "index", 40)
    halves = [_baseline(project, tmp_path / "index", 40, part=(i, 2)) for i in (0, 1)]
    assert [h["statements_timed"] for h in halves] == [20, 20] and whole["statements_timed"] == 40
    assert all(h["statements_all"] == whole["statements_all"] for h in halves)


def test_a_negative_number_of_pairs_is_refused_in_one_line(capsys):
    import pytest

    from benchmarks.governance_bench import main

    with pytest.raises(SystemExit) as exited:
        main(["--mode", "control-plane", "--assets", "10", "--pairs", "-1"])
    assert exited.value.code == 2
    assert "--pairs must be 0 or more, not -1" in capsys.readouterr().err
