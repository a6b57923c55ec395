"""The time ``explain`` takes on every TPC-DS query (issue 2), beside sqlglot's parse +
qualify floor measured in the same run, and optionally a profile.

    python -m benchmarks.explain_tpcds [--repeat N] [--workload tpcds|tpch] [--json PATH]
                                       [--profile [--top 25]]

Per query: median of the runs after a warm-up (``timing.py``: gc outside the timed part,
passes of the two tools interleaved).  Totals in wall-clock time and in CPU time (every thread
of the process: ``explain`` works on its deep-stack worker thread, ``prism_lineage.guarded``),
with the load average before and after: on a shared machine the CPU ratio moves much less
than the wall-clock one.  ``--json`` also writes the figures there
(``benchmarks/results/explain_tpcds.json`` holds the ones docs/performance.md quotes).
``--profile`` runs cProfile over one pass of ``explain`` on every query — inside the worker
thread, where the work is — and prints the top functions by cumulative and by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import io
import json
import os
import platform
import pstats
import subprocess
import sys
from pathlib import Path

from . import workloads
from .adapters import prism_adapter, sqlglot_adapter
from .timing import measure_many


def timings(workload: workloads.Workload, repeat: int) -> tuple[str, dict]:
    load_before = os.getloadavg()
    calls = {
        "explain": prism_adapter.prepare("prism.explain", workload.schema, None, workload.queries),
        "floor": sqlglot_adapter.prepare("sqlglot.qualify", workload.schema, None, workload.queries),
    }
    records = measure_many(calls, workload.queries, repeat=repeat, budget=1e9)
    explain, floor = records["explain"], records["floor"]
    lines = [f"{'query':<8}{'explain ms':>11}{'floor ms':>10}{'ratio':>7}"]
    for name, _ in workload.queries:
        ours, theirs = explain["per_query_s"][name], floor["per_query_s"][name]
        failed = "  FAILED: " + explain["failures"][name] if name in explain["failures"] else ""
        lines.append(f"{name:<8}{ours * 1000:>11.2f}{theirs * 1000:>10.2f}{ours / theirs:>7.2f}{failed}")
    lines.append(
        f"{workload.label}: explain {explain['total_s']:.3f} s for {len(workload.queries)} queries "
        f"({len(explain['failures'])} failed); sqlglot parse + qualify {floor['total_s']:.3f} s; "
        f"ratio {explain['total_s'] / floor['total_s']:.2f} (median of {explain['runs']} runs)"
    )
    load_after = os.getloadavg()
    lines.append(
        f"CPU: explain {explain['cpu_total_s']:.3f} s; sqlglot parse + qualify {floor['cpu_total_s']:.3f} s; "
        f"ratio {explain['cpu_total_s'] / floor['cpu_total_s']:.2f}; load average "
        f"{' '.join(f'{x:.2f}' for x in load_before)} before, {' '.join(f'{x:.2f}' for x in load_after)} after"
    )
    figures = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "commit": _commit(),
        "machine": f"Python {platform.python_version()} on {platform.system()} {platform.machine()}, "
                   f"{os.cpu_count()} cores",
        "workload": workload.name,
        "queries": len(workload.queries),
        "repeat": repeat,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in load_after],
        "ratio_wall": explain["total_s"] / floor["total_s"],
        "ratio_cpu": explain["cpu_total_s"] / floor["cpu_total_s"],
        "explain": explain,
        "floor": floor,
    }
    return "\n".join(lines) + "\n", figures


def _commit() -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(workloads.ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=False)
    except OSError:
        return None
    return done.stdout.strip() or None


def profile(workload: workloads.Workload, top: int) -> str:
    from prism_lineage.guarded import run_guarded

    call, _ = prism_adapter.prepare("prism.explain", workload.schema, None, workload.queries)

    def profiled() -> cProfile.Profile:
        # On the deep-stack worker, where explain works (called there, it runs inline): a
        # profile of the calling thread would show it waiting and nothing else.
        for _, sql in workload.queries:  # warm-up: imports and first-call costs are not the profile's
            call(sql)
        profiler = cProfile.Profile()
        profiler.enable()
        for _, sql in workload.queries:
            call(sql)
        profiler.disable()
        return profiler

    profiler = run_guarded(profiled)
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).strip_dirs()
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.explain_tpcds", description=__doc__.split("\n\n")[0])
    parser.add_argument("--workload", choices=workloads.NAMES, default="tpcds")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", metavar="PATH", type=Path, help="also write the figures there (JSON)")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of one pass instead")
    parser.add_argument("--top", type=int, default=25, help="functions shown by --profile (default 25)")
    args = parser.parse_args(argv)
    workload = workloads.load(args.workload)
    if args.profile:
        sys.stdout.write(profile(workload, args.top))
        return 0
    text, figures = timings(workload, args.repeat)
    sys.stdout.write(text)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
        print(f"figures written to {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
