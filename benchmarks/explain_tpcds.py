"""The time ``explain`` takes on every TPC-DS query (issue 2), beside sqlglot's parse +
qualify floor measured in the same run, and optionally a profile.

    python -m benchmarks.explain_tpcds [--repeat N] [--workload tpcds|tpch] [--profile [--top 25]]

Per query: median of the runs after a warm-up (``timing.py``: gc outside the timed part,
passes of the two tools interleaved), wall clock and CPU time (every thread of the process:
``explain`` works on its deep-stack worker thread), with the load average before and after.  ``--profile`` runs cProfile over one pass of
``explain`` on every query and prints the top functions by cumulative and by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys

from . import workloads
from .adapters import prism_adapter, sqlglot_adapter
from .timing import measure_many


def timings(workload: workloads.Workload, repeat: int) -> str:
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
    lines.append(
        f"CPU: explain {explain['cpu_total_s']:.3f} s; sqlglot parse + qualify {floor['cpu_total_s']:.3f} s; "
        f"ratio {explain['cpu_total_s'] / floor['cpu_total_s']:.2f}; load average "
        f"{' '.join(f'{x:.2f}' for x in load_before)} before, {' '.join(f'{x:.2f}' for x in os.getloadavg())} after"
    )
    return "\n".join(lines) + "\n"


def profile(workload: workloads.Workload, top: int) -> str:
    call, _ = prism_adapter.prepare("prism.explain", workload.schema, None, workload.queries)
    for _, sql in workload.queries:  # warm-up: imports and first-call costs are not the profile's
        call(sql)
    profiler = cProfile.Profile()
    profiler.enable()
    for _, sql in workload.queries:
        call(sql)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).strip_dirs()
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.explain_tpcds", description=__doc__.split("\n\n")[0])
    parser.add_argument("--workload", choices=workloads.NAMES, default="tpcds")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="print a cProfile of one pass instead")
    parser.add_argument("--top", type=int, default=25, help="functions shown by --profile (default 25)")
    args = parser.parse_args(argv)
    workload = workloads.load(args.workload)
    sys.stdout.write(profile(workload, args.top) if args.profile else timings(workload, args.repeat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
