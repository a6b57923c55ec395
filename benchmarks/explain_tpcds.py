"""The time ``explain`` takes on every TPC-DS query (issue 2), beside sqlglot's parse +
qualify floor measured in the same run, and optionally a profile.

    python -m benchmarks.explain_tpcds [--repeat N] [--workload tpcds|tpch] [--json PATH]
                                       [--processes N [--seeds 1,2,...]] [--profile [--top 25]]

Per query: median of the runs after a warm-up (``timing.py``: gc outside the timed part,
passes of the two tools interleaved).  Totals in wall-clock time and in CPU time (every thread
of the process: ``explain`` works on its deep-stack worker thread, ``prism_lineage.guarded``),
with the load average before and after: on a shared machine the CPU ratio moves much less
than the wall-clock one.  ``--json`` also writes the figures there
(``benchmarks/results/explain_tpcds.json`` holds the ones docs/performance.md quotes).
``--processes N`` runs the same comparison in N fresh processes, one after another, each with
its own ``PYTHONHASHSEED`` (1..N unless ``--seeds`` names them) and with the tool that goes
first in each round alternating between processes; it prints every process's figures, then
the median and the range of the ratio over the processes.  One process's ratio says little:
the time of both tools moves from one process to the next much more than from one pass to the
next within a process (docs/performance.md, "explain ÷ the floor on TPC-DS").
``--profile`` runs cProfile over one pass of ``explain`` on every query — inside the worker
thread, where the work is — and prints the top functions by cumulative and by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import gc
import io
import json
import os
import platform
import pstats
import statistics
import subprocess
import sys
import time
from pathlib import Path

from . import workloads
from .adapters import prism_adapter, sqlglot_adapter
from .timing import measure_many


def timings(workload: workloads.Workload, repeat: int, floor_first: bool = False) -> tuple[str, dict]:
    load_before = os.getloadavg()
    calls = {
        "explain": prism_adapter.prepare("prism.explain", workload.schema, None, workload.queries),
        "floor": sqlglot_adapter.prepare("sqlglot.qualify", workload.schema, None, workload.queries),
    }
    if floor_first:  # the order of the warm-ups and of each round of passes
        calls = {"floor": calls["floor"], "explain": calls["explain"]}
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
        f"ratio {explain['cpu_total_s'] / floor['cpu_total_s']:.2f} (each query's least over the passes: "
        f"{explain['cpu_least_total_s']:.3f} s / {floor['cpu_least_total_s']:.3f} s, ratio "
        f"{explain['cpu_least_total_s'] / floor['cpu_least_total_s']:.2f}); load average "
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
        "hash_seed": os.environ.get("PYTHONHASHSEED"),
        "first": next(iter(calls)),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in load_after],
        "ratio_wall": explain["total_s"] / floor["total_s"],
        "ratio_cpu": explain["cpu_total_s"] / floor["cpu_total_s"],
        "ratio_cpu_least": explain["cpu_least_total_s"] / floor["cpu_least_total_s"],
        "explain": explain,
        "floor": floor,
    }
    return "\n".join(lines) + "\n", figures


def across_processes(workload: workloads.Workload, repeat: int, seeds: list[int]) -> tuple[str, dict]:
    """The comparison in one fresh process per seed, one after another (never two at once:
    they would compete for the cores).  The tool measured first alternates between processes,
    so neither always gets the warmer start."""
    runs = []
    for index, seed in enumerate(seeds):
        environment = dict(os.environ, PYTHONHASHSEED=str(seed))
        command = [sys.executable, "-m", "benchmarks.explain_tpcds", "--child", "--workload", workload.name,
                   "--repeat", str(repeat)] + (["--floor-first"] if index % 2 else [])
        done = subprocess.run(command, cwd=workloads.ROOT, env=environment, capture_output=True, text=True,
                              check=False)
        if done.returncode != 0:
            raise RuntimeError(f"the process with PYTHONHASHSEED={seed} failed:\n{done.stderr}")
        runs.append(json.loads(done.stdout))
    return _across_text(workload, runs), _across_figures(workload, repeat, runs)


def _across_text(workload: workloads.Workload, runs: list[dict]) -> str:
    lines = [f"{workload.label}, {len(runs)} processes, {runs[0]['queries']} queries, median of "
             f"{runs[0]['explain']['runs']} passes in each; times are for all the queries together",
             f"{'seed':>5} {'first':>8} {'load':>5} {'CPU explain':>12} {'CPU floor':>10} {'ratio':>6}"
             f" {'least':>6} {'wall explain':>13} {'wall floor':>11} {'ratio':>6}  CPU passes explain | floor (ms)"]
    for run in runs:
        explain, floor = run["explain"], run["floor"]
        passes = " ".join(f"{x * 1000:.0f}" for x in explain["cpu_passes_s"]) + " | " + " ".join(
            f"{x * 1000:.0f}" for x in floor["cpu_passes_s"])
        lines.append(f"{run['hash_seed']:>5} {run['first']:>8} {run['load_average_before'][0]:>5.2f}"
                     f" {explain['cpu_total_s']:>12.3f} {floor['cpu_total_s']:>10.3f} {run['ratio_cpu']:>6.2f}"
                     f" {run['ratio_cpu_least']:>6.2f}"
                     f" {explain['total_s']:>13.3f} {floor['total_s']:>11.3f} {run['ratio_wall']:>6.2f}  {passes}")
    summary = _summary(runs)
    lines.append(f"ratio (CPU): median {summary['ratio_cpu_median']:.2f}, range {summary['ratio_cpu_min']:.2f}"
                 f"–{summary['ratio_cpu_max']:.2f}; ratio of the medians {summary['ratio_cpu_of_medians']:.2f}"
                 f" (explain {summary['cpu_explain_median_s']:.3f} s, floor {summary['cpu_floor_median_s']:.3f} s)")
    lines.append(f"ratio (CPU, each query's least over the passes): median {summary['ratio_cpu_least_median']:.2f}, "
                 f"range {summary['ratio_cpu_least_min']:.2f}–{summary['ratio_cpu_least_max']:.2f}")
    lines.append(f"ratio (wall): median {summary['ratio_wall_median']:.2f}, range {summary['ratio_wall_min']:.2f}"
                 f"–{summary['ratio_wall_max']:.2f}")
    lines.append("load average (1 min) before each process: "
                 + " ".join(f"{run['load_average_before'][0]:.2f}" for run in runs)
                 + f"; after the last: {' '.join(f'{x:.2f}' for x in runs[-1]['load_average_after'])}")
    return "\n".join(lines) + "\n"


def _summary(runs: list[dict]) -> dict:
    cpu = [run["ratio_cpu"] for run in runs]
    least = [run["ratio_cpu_least"] for run in runs]
    wall = [run["ratio_wall"] for run in runs]
    explain = statistics.median(run["explain"]["cpu_total_s"] for run in runs)
    floor = statistics.median(run["floor"]["cpu_total_s"] for run in runs)
    return {
        "ratio_cpu_median": statistics.median(cpu), "ratio_cpu_min": min(cpu), "ratio_cpu_max": max(cpu),
        "ratio_cpu_least_median": statistics.median(least), "ratio_cpu_least_min": min(least),
        "ratio_cpu_least_max": max(least),
        "ratio_wall_median": statistics.median(wall), "ratio_wall_min": min(wall), "ratio_wall_max": max(wall),
        "cpu_explain_median_s": explain, "cpu_floor_median_s": floor, "ratio_cpu_of_medians": explain / floor,
    }


def _across_figures(workload: workloads.Workload, repeat: int, runs: list[dict]) -> dict:
    return {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "commit": _commit(),
        "machine": runs[0]["machine"],
        "workload": workload.name,
        "queries": runs[0]["queries"],
        "repeat": repeat,
        "processes": len(runs),
        **_summary(runs),
        "runs": [{key: run[key] for key in ("hash_seed", "first", "load_average_before", "load_average_after",
                                            "ratio_cpu", "ratio_cpu_least", "ratio_wall")}
                 | {tool: {key: run[tool][key] for key in ("runs", "total_s", "cpu_total_s", "cpu_passes_s",
                                                          "cpu_least_total_s", "wall_passes_s")} for tool in ("explain", "floor")}
                 for run in runs],
    }


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
        # The collector off, as in the timed passes: a collection billed to whichever
        # function happened to allocate would mislead.
        gc.collect()
        gc.disable()
        # CPU time of this thread, not the wall clock: on a shared machine a function would
        # otherwise be billed for the time the thread waited for a core.
        profiler = cProfile.Profile(time.thread_time)
        try:
            profiler.enable()
            for _, sql in workload.queries:
                call(sql)
            profiler.disable()
        finally:
            gc.enable()
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
    parser.add_argument("--processes", type=int, default=1, metavar="N",
                        help="run the comparison in N fresh processes, one PYTHONHASHSEED each, and report the "
                             "median and range of the ratio (default 1: in this process)")
    parser.add_argument("--seeds", metavar="1,2,...", help="the PYTHONHASHSEED of each process (default 1..N)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--floor-first", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--profile", action="store_true", help="print a cProfile of one pass instead")
    parser.add_argument("--top", type=int, default=25, help="functions shown by --profile (default 25)")
    args = parser.parse_args(argv)
    workload = workloads.load(args.workload)
    if args.profile:
        sys.stdout.write(profile(workload, args.top))
        return 0
    if args.child:  # one process of --processes: the figures as JSON on stdout
        _, figures = timings(workload, args.repeat, floor_first=args.floor_first)
        figures["explain"].pop("per_query_s")
        figures["floor"].pop("per_query_s")
        sys.stdout.write(json.dumps(figures) + "\n")
        return 0
    seeds = _seeds(parser, args)
    if seeds is not None:
        text, figures = across_processes(workload, args.repeat, seeds)
    else:
        text, figures = timings(workload, args.repeat)
    sys.stdout.write(text)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
        print(f"figures written to {args.json}", file=sys.stderr)
    return 0


def _seeds(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[int] | None:
    if args.seeds is None:
        if args.processes < 1:
            parser.error("--processes must be at least 1")
        return list(range(1, args.processes + 1)) if args.processes > 1 else None
    try:
        seeds = [int(part) for part in args.seeds.split(",")]
    except ValueError:
        parser.error(f"--seeds takes whole numbers separated by commas, not {args.seeds!r}")
    if not seeds or any(not 0 <= seed <= 4294967295 for seed in seeds):
        parser.error("--seeds: each PYTHONHASHSEED is a whole number from 0 to 4294967295")
    return seeds


if __name__ == "__main__":
    sys.exit(main())
