"""The benchmark runner: every tool on TPC-H and TPC-DS, in one run.

    python -m benchmarks.run [--workload tpch|tpcds|all] [--repeat N] [--budget S]
                             [--only KEYS] [--json PATH] [--chart PATH] [--no-agreement]

Prints a table (totals, median and worst query, failures, ratio to the sqlglot parse +
qualify floor), writes the figures as JSON (default ``benchmarks/results/latest.json``) and,
with ``--chart``, a PNG.  Tools that are not installed are reported as such; peers with
conflicting pins run in their own virtual environment (``benchmarks/setup_peers.sh``).
The protocol is in ``benchmarks/timing.py``; docs/performance.md shows the figures.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

from . import agreement, peers, report, workloads
from .adapters import ADAPTERS, FLOOR
from .timing import measure_many
from .workloads import ROOT, Workload

DEFAULT_JSON = ROOT / "benchmarks" / "results" / "latest.json"


def parse_args(argv) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--workload", choices=("tpch", "tpcds", "all"), default="all")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs after the warm-up (default 5)")
    parser.add_argument("--budget", type=float, default=60.0,
                        help="at most this many seconds of timed runs per figure: a slow tool gets fewer runs "
                             "(at least one; default 60)")
    parser.add_argument("--only", metavar="KEYS",
                        help="comma-separated measure keys or prefixes (e.g. 'prism,sqlglot.parse'); "
                             "the floor is always measured")
    parser.add_argument("--json", metavar="PATH", type=Path, default=DEFAULT_JSON,
                        help=f"where to write the figures (default {DEFAULT_JSON.relative_to(ROOT)})")
    parser.add_argument("--chart", metavar="PATH", type=Path, help="also draw the chart (PNG) there")
    parser.add_argument("--no-agreement", action="store_true",
                        help="skip the value-lineage agreement with sqlglot")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def selected_measures(only: str | None) -> list[tuple[Any, str]]:
    """(adapter, measure key) in table order, filtered by ``--only`` (the floor always stays)."""
    wanted = [w.strip() for w in only.split(",") if w.strip()] if only else None
    chosen = []
    for adapter in ADAPTERS:
        for key in adapter.MEASURES:
            if wanted is None or key == FLOOR or any(key == w or key.startswith(w.rstrip(".") + ".") for w in wanted):
                chosen.append((adapter, key))
    return chosen


def run(args: argparse.Namespace) -> dict[str, Any]:
    names = workloads.NAMES if args.workload == "all" else (args.workload,)
    loaded = [workloads.load(name) for name in names]
    chosen = selected_measures(args.only)
    placements = {adapter: peers.place(adapter) for adapter in dict.fromkeys(a for a, _ in chosen)}
    floor_adapter = next(a for a, key in chosen if key == FLOOR)
    result: dict[str, Any] = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "commit": _commit(),
        "machine": _machine(),
        "load_average_before": _load(),
        "repeat": args.repeat,
        "budget_s": args.budget,
        "floor": FLOOR,
        "floor_label": floor_adapter.MEASURES[FLOOR],
        "tools": {},
        "workloads": {},
    }
    for workload in loaded:
        result["workloads"][workload.name] = {
            "label": workload.label, "queries": len(workload.queries), "fields": _field_count(workload),
            "measures": {key: {"key": key, "label": adapter.MEASURES[key], "tool": adapter.TOOL}
                         for adapter, key in chosen},
        }
    in_process = [(a, key) for a, key in chosen if placements[a].where == "in-process"]
    for workload in loaded:
        _progress(f"timing {len(in_process)} in-process measures on {workload.label} (passes interleaved)")
        calls = {key: adapter.prepare(key, workload.schema, None, workload.queries) for adapter, key in in_process}
        records = measure_many(calls, workload.queries, repeat=args.repeat, budget=args.budget)
        for key, record in records.items():
            _fill(result, workload.name, key, record)
    for adapter, placement in placements.items():
        result["tools"][adapter.TOOL] = {"where": placement.where, "version": placement.version}
        keys = [key for a, key in chosen if a is adapter]
        if placement.where == "venv":
            _progress(f"timing {adapter.TOOL} in its virtual environment ({placement.python})")
            try:
                answer = peers.run_in_venv(placement, keys, loaded, repeat=args.repeat, budget=args.budget)
            except (RuntimeError, OSError, subprocess.TimeoutExpired, json.JSONDecodeError) as error:
                for workload in loaded:
                    for key in keys:
                        _status(result, workload.name, key, f"error: {error}")
                continue
            result["tools"][adapter.TOOL]["version"] = answer["version"]
            for workload_name, records in answer["results"].items():
                for key, record in records.items():
                    _fill(result, workload_name, key, record)
        elif placement.where == "not installed":
            for workload in loaded:
                for key in keys:
                    _status(result, workload.name, key, "not installed")
    result["load_average_after"] = _load()
    _ratios(result)
    if not args.no_agreement:
        for workload in loaded:
            _progress(f"comparing value lineage with sqlglot on {workload.label}")
            result["workloads"][workload.name]["agreement"] = agreement.compare(workload)
    return result


def _fill(result, workload: str, key: str, record: dict) -> None:
    result["workloads"][workload]["measures"][key].update(record, status="measured")


def _status(result, workload: str, key: str, status: str) -> None:
    result["workloads"][workload]["measures"][key]["status"] = status


def _ratios(result) -> None:
    for workload in result["workloads"].values():
        floor = workload["measures"].get(result["floor"], {})
        if floor.get("status") != "measured" or not floor["total_s"]:
            continue
        for record in workload["measures"].values():
            if record.get("status") == "measured":
                record["ratio_to_floor"] = record["total_s"] / floor["total_s"]


def _field_count(workload: Workload) -> int:
    """Output fields of all queries, as prism counts them."""
    import prism_lineage

    catalog = prism_lineage.Catalog.from_mapping(workload.schema)
    count = 0
    for _, sql in workload.queries:
        try:
            count += sum(len(s.fields) for s in prism_lineage.explain(sql, catalog).statements)
        except prism_lineage.PrismError:
            pass
    return count


def _commit() -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=False)
    except OSError:
        return None
    return done.stdout.strip() or None


def _machine() -> str:
    compiled = "with sqlglotc" if _has_sqlglotc() else "without sqlglotc"
    return (f"Python {peers.python_version()} on {platform.system()} {platform.machine()}, "
            f"{os.cpu_count()} cores, sqlglot {peers._version('sqlglot')} {compiled}")


def _load() -> list[float] | None:
    """The 1, 5 and 15 minute load averages: other work on the machine shows here."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def _has_sqlglotc() -> bool:
    return peers._version("sqlglotc") is not None


def _progress(message: str) -> None:
    print(f"… {message}", file=sys.stderr, flush=True)


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        result = run(args)
    except FileNotFoundError as error:
        print(f"benchmarks: {error}", file=sys.stderr)
        return 3
    sys.stdout.write(report.table(result))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(f"figures written to {args.json}", file=sys.stderr)
    if args.chart:
        report.chart(result, args.chart)
        print(f"chart written to {args.chart}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
