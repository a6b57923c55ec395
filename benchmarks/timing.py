"""The measuring protocol every figure of the benchmarks follows (standard library only: the
peer worker runs this same file inside another virtual environment).

One *pass* runs a callable once on every query of a workload.  The first pass is a warm-up
(imports, caches, first-call costs); it also records which queries fail.  Then up to
``repeat`` timed passes follow.  Before each pass ``gc.collect()`` runs and the collector is
disabled for the pass, so no collection lands inside a timed call and none is billed to the
next tool.  Each call is timed on its own with ``perf_counter`` (an optional ``reset`` runs
before it, outside the timing: e.g. to clear a result cache a tool keeps between calls).

Figures: a query's time is the median over the timed passes; the total is the median of the
passes' totals.  Beside the wall clock, each pass's CPU time (``process_time``: every thread of
the process, so work handed to a worker thread counts) is recorded as ``cpu_total_s``, the
median of the passes' CPU totals: on a machine shared with other work it moves much less than
the wall clock, which also counts the time the process waited for a core.  A slow tool gets fewer timed passes (at least one) so that one figure
never costs more than ``budget`` seconds; the number of passes is recorded with it.  Tools
measured together have their timed passes interleaved, one pass of each in turn.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

Query = tuple[str, str]  # (name, SQL text)


def measure(call: Callable[[str], Any], queries: Sequence[Query], *, repeat: int = 5, budget: float = 60.0,
            reset: Callable[[], None] | None = None) -> dict[str, Any]:
    """Time ``call`` on every query: a JSON-ready record (see the module docstring)."""
    return measure_many({"only": (call, reset)}, queries, repeat=repeat, budget=budget)["only"]


def measure_many(calls: dict[str, tuple[Callable[[str], Any], Callable[[], None] | None]],
                 queries: Sequence[Query], *, repeat: int = 5, budget: float = 60.0) -> dict[str, dict[str, Any]]:
    """Time several callables on the same queries, their timed passes interleaved (one pass
    of each in turn), so a change of load on the machine during the run weighs on all of
    them alike and their ratios stay fair."""
    failures: dict[str, dict[str, str]] = {}
    runs: dict[str, int] = {}
    for key, (call, reset) in calls.items():
        warm_up, failures[key], _ = _pass(call, queries, reset, failures={})
        runs[key] = _runs_within_budget(sum(warm_up.values()), repeat, budget)
    passes: dict[str, list[dict[str, float]]] = {key: [] for key in calls}
    cpu: dict[str, list[dict[str, float]]] = {key: [] for key in calls}
    for round_ in range(max(runs.values(), default=0)):
        for key, (call, reset) in calls.items():
            if round_ < runs[key]:
                times, _, cpu_times = _pass(call, queries, reset, failures=None)
                passes[key].append(times)
                cpu[key].append(cpu_times)
    return {key: _record(passes[key], failures[key], cpu[key]) for key in calls}


def _record(passes: list[dict[str, float]], failures: dict[str, str], cpu_passes: list[dict[str, float]]
            ) -> dict[str, Any]:
    medians = {name: statistics.median(p[name] for p in passes) for name in passes[0]}
    cpu = [sum(p.values()) for p in cpu_passes]
    succeeded = {name: seconds for name, seconds in medians.items() if name not in failures}
    worst = max(succeeded, key=succeeded.get) if succeeded else None
    return {
        "runs": len(passes),
        "total_s": statistics.median(sum(p.values()) for p in passes),
        "cpu_total_s": statistics.median(cpu),
        "cpu_passes_s": cpu,
        # Each query's least CPU time over the passes, summed: work on a shared machine is only
        # ever slowed down by what else runs (caches, cores), never sped up.
        "cpu_least_total_s": sum(min(p[name] for p in cpu_passes) for name in cpu_passes[0]),
        "wall_passes_s": [sum(p.values()) for p in passes],
        "median_query_s": statistics.median(succeeded.values()) if succeeded else None,
        "worst_query": worst,
        "worst_query_s": succeeded[worst] if worst else None,
        "failures": failures,
        "per_query_s": medians,
    }


def _pass(call, queries, reset, failures: dict[str, str] | None
          ) -> tuple[dict[str, float], dict[str, str], dict[str, float]]:
    """One pass over every query with the collector off: each query's wall time, the errors
    (collected into ``failures`` when given) and each query's CPU time."""
    times: dict[str, float] = {}
    cpu: dict[str, float] = {}
    found: dict[str, str] = {} if failures is None else failures
    clock, cpu_clock = time.perf_counter, time.process_time
    gc.collect()
    gc.disable()
    try:
        for name, sql in queries:
            if reset is not None:
                reset()
            cpu_start = cpu_clock()
            start = clock()
            try:
                call(sql)
            except Exception as error:  # noqa: BLE001 - a peer's failure is a result, not a crash
                times[name] = clock() - start
                cpu[name] = cpu_clock() - cpu_start
                found[name] = _describe(error)
                continue
            times[name] = clock() - start
            cpu[name] = cpu_clock() - cpu_start
    finally:
        gc.enable()
    return times, found, cpu


def _runs_within_budget(warm_up_s: float, repeat: int, budget: float) -> int:
    if warm_up_s <= 0:
        return max(1, repeat)
    return max(1, min(repeat, int(budget // warm_up_s)))


def _describe(error: BaseException) -> str:
    text = " ".join(str(error).split())
    if len(text) > 200:
        text = text[:197] + "..."
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
