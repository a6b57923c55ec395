"""Scale of the governance rollup: the time of ``sync`` against the size of a generated project.

Part of ``python -m benchmarks.scale`` (its ``governance`` section); alone:

    python -m benchmarks.scale_governance [--repeat N] [--families NAME,...]

Families:

* ``pipeline_one_table``: one pipeline of ``n`` assets that all write one table, each depending
  on the one before (issue 15 item 14: this was cubic — 500 assets took 69.5 s — because the
  reading order joined every writer of the table to every other for each dependency);
* ``pipeline_fan_in``: one pipeline of ``n`` assets writing ``n`` tables, the last depending on
  every other (a wide ``depends_on``), each reading the table before.

Each point is the median of the runs of building the declarations (pydantic validation) and
``sync`` (reading every statement); the log-log slope over the upper half of the sizes says how
the cost grows (1: linear).  Reading the statements dominates: the slope is that of the rollup
around it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def pipeline_one_table(n: int):
    from prism_lineage.governance.declarations import Column, Environment, Pipeline, PipelineAsset, Project, Table

    assets = tuple(PipelineAsset(name=f"a{i}", writes="s.t", sql=f"SELECT x + {i} AS x FROM s.src",
                                 depends_on=(f"a{i - 1}",) if i else ()) for i in range(n))
    tables = (Table(namespace="s", name="t", file="tables/t.yaml"),
              Table(namespace="s", name="src", file="tables/src.yaml", columns=(Column(name="x", type="int"),)))
    env = Environment(name="prod", dialect="duckdb", tables=tables,
                      pipelines=(Pipeline(name="p", assets=assets, file="pipelines/p.yaml"),))
    return Project(name="scale", environments=(env,))


def pipeline_fan_in(n: int):
    from prism_lineage.governance.declarations import Column, Environment, Pipeline, PipelineAsset, Project, Table

    tables = tuple(Table(namespace="s", name=f"t{i}", file=f"tables/t{i}.yaml", columns=(Column(name="x", type="int"),))
                   for i in range(n))
    assets = [PipelineAsset(name=f"a{i}", writes=f"s.t{i}", sql=f"SELECT x FROM s.t{max(i - 1, 0)}")
              for i in range(n - 1)]
    assets.append(PipelineAsset(name=f"a{n - 1}", writes=f"s.t{n - 1}", sql="SELECT 1 AS x",
                                depends_on=tuple(f"a{i}" for i in range(n - 1))))
    env = Environment(name="prod", dialect="duckdb", tables=tables,
                      pipelines=(Pipeline(name="p", assets=tuple(assets), file="pipelines/p.yaml"),))
    return Project(name="scale", environments=(env,))


FAMILIES: dict[str, tuple[Callable[[int], Any], tuple[int, ...], str]] = {
    "pipeline_one_table": (pipeline_one_table, (100, 250, 500, 1000, 2500, 5000), "assets writing one table"),
    "pipeline_fan_in": (pipeline_fan_in, (100, 250, 500, 1000, 2500, 5000), "assets, the last depending on all"),
}


def run_family(name: str, repeat: int) -> dict[str, Any]:
    from prism_lineage.governance.rollup import sync

    from .scale import _progress, _slope

    generate, sizes, unit = FAMILIES[name]
    points = []
    for n in sizes:
        timings = []
        for _ in range(repeat):
            start = time.perf_counter()
            lineage = sync(generate(n))
            timings.append(time.perf_counter() - start)
        point = {"n": n, "prism.sync": statistics.median(timings), "statements_read": lineage.reads_performed,
                 "edges": len(lineage.edges)}
        points.append(point)
        _progress(f"{name} n={n}: sync {point['prism.sync']:.2f} s ({point['statements_read']} statements read)")
    return {"unit": unit, "points": points, "slope": {"prism.sync": _slope(points, "prism.sync")}}


def table(result: dict[str, Any]) -> str:
    lines = []
    for name, family in result.items():
        slope = family["slope"]["prism.sync"]
        lines.append(f"{name} ({family['unit']}): slope sync {'-' if slope is None else f'{slope:.2f}'}")
        lines.append(f"  {'n':>5}  {'sync s':>8}  {'read':>6}  {'per statement ms':>16}")
        for p in family["points"]:
            per = p["prism.sync"] / p["statements_read"] * 1000 if p["statements_read"] else None
            lines.append(f"  {p['n']:>5}  {p['prism.sync']:>8.2f}  {p['statements_read']:>6}  "
                         f"{'-' if per is None else f'{per:.2f}':>16}")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    from .workloads import ROOT

    parser = argparse.ArgumentParser(prog="python -m benchmarks.scale_governance",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--families", default=",".join(FAMILIES), help=f"comma-separated, of: {', '.join(FAMILIES)}")
    parser.add_argument("--repeat", type=int, default=1, help="runs per point (default 1: each reads every statement)")
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "scale_governance.json")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.families.split(",") if n.strip()]
    unknown = [n for n in names if n not in FAMILIES]
    if unknown:
        parser.error(f"unknown families: {', '.join(unknown)}")
    result = {name: run_family(name, args.repeat) for name in names}
    sys.stdout.write(table(result))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
