"""The observe benchmark runs (tiny counts): its figures are made by the code it measures."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from benchmarks import observe_bench  # noqa: E402


def test_the_observe_benchmark_runs(tmp_path: Path) -> None:
    figures = observe_bench.main(["--events", "20", "--log-runs", "60", "--json", str(tmp_path / "o.json")])
    assert figures["events"]["count"] == 20 and figures["events"]["edges_recorded"] > 0
    log = figures["query_log"]
    assert log["statements"] + sum(log["skipped"].values()) - log["skipped"].get(
        "writes no declared asset from a declared asset", 0) >= log["statements"]
    assert 1 <= log["distinct"] <= log["statements"] and log["dedup_ratio"] >= 1
    assert (tmp_path / "o.json").is_file()
