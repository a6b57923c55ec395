"""Runs one tool's measures inside the tool's own virtual environment (standard library only).

The runner starts ``<venv>/bin/python benchmarks/worker.py`` and writes a job on stdin::

    {"adapter": "datahub_adapter", "measures": [...], "repeat": 5, "budget": 60,
     "workloads": [{"name": "tpcds", "schema": {...}, "dialect": null, "queries": [[name, sql], ...]}]}

The worker times with the same protocol as the runner (``timing.py``, loaded by path) and
prints one JSON document on stdout: ``{"version": ..., "results": {workload: {measure: record}}}``.
The timing happens here, inside the worker: the process start-up and the JSON exchange are
never billed to the tool.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    job = json.load(sys.stdin)
    timing = _load("prism_bench_timing", HERE / "timing.py")
    adapter = _load(job["adapter"], HERE / "adapters" / f"{job['adapter']}.py")
    results: dict[str, dict] = {}
    for workload in job["workloads"]:
        queries = [tuple(q) for q in workload["queries"]]
        calls = {measure: adapter.prepare(measure, workload["schema"], workload["dialect"], queries)
                 for measure in job["measures"]}
        results[workload["name"]] = timing.measure_many(calls, queries, repeat=job["repeat"], budget=job["budget"])
    json.dump({"version": importlib.metadata.version(adapter.DISTRIBUTION), "results": results}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
