"""Governance lineage at warehouse scale: a generated project of 10,000 assets.

    python -m benchmarks.governance_bench [--assets N] [--samples K] [--seed S] [--json PATH]

The project is layered like a real warehouse, with fan-in and fan-out: raw tables (no SQL),
staging tables written by pipeline assets (one or two raw tables, renamed and cast),
intermediate views (joins of two to four staging tables, some aggregated), mart tables written
by pipeline assets (joins and aggregates over intermediate views and staging tables, ordered by
``depends_on`` inside their pipeline), and report views over marts.  Every view and pipeline
asset holds real SQL that the column-level engine reads.

Figures: the time and peak memory (RSS, and the Python heap's peak while building) to build the
rollup from scratch; a re-sync after one statement changed (how many statements it reads, and
how long); explorer answer times at depths 1, 2 and 10 (both directions) and impact answer
times, over sampled assets of every layer (median and worst).
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import random
import resource
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

from prism_lineage.governance.access import OWNER
from prism_lineage.governance.declarations import Column, Environment, Pipeline, PipelineAsset, Project, Table, View
from prism_lineage.governance.explorer import explore
from prism_lineage.governance.impact import impact
from prism_lineage.governance.rollup import sync

SHARES = {"raw": 0.15, "staging": 0.30, "intermediate": 0.30, "mart": 0.20, "report": 0.05}
PIPELINES = 20
COLUMNS = ("id", "key", "amount", "status", "created_at", "category", "region", "score")


def generate(total: int, seed: int) -> Project:
    rng = random.Random(seed)
    counts = {layer: int(total * share) for layer, share in SHARES.items()}
    counts["raw"] += total - sum(counts.values())
    tables: list[Table] = []
    views: list[View] = []
    assets: dict[int, list[PipelineAsset]] = {p: [] for p in range(PIPELINES)}
    columns = tuple(Column(name=c, type="bigint" if c in ("id", "key") else "varchar") for c in COLUMNS)

    raw = [f"raw.t{i:05d}" for i in range(counts["raw"])]
    for name in raw:
        tables.append(Table(namespace="raw", name=name.split(".")[1], columns=columns, owner="ingest",
                            file=f"tables/{name}.yaml"))

    staging = [f"staging.s{i:05d}" for i in range(counts["staging"])]
    for i, name in enumerate(staging):
        sources = rng.sample(raw, rng.choice((1, 1, 2)))
        sql = _staging_sql(sources)
        tables.append(Table(namespace="staging", name=name.split(".")[1], owner="analytics", file=f"tables/{name}.yaml"))
        assets[i % PIPELINES].append(PipelineAsset(name=f"stage_{i}", writes=name, sql=sql))

    intermediate = [f"int.v{i:05d}" for i in range(counts["intermediate"])]
    for i, name in enumerate(intermediate):
        sources = rng.sample(staging, rng.randint(2, 4))
        views.append(View(namespace="int", name=name.split(".")[1], sql=_join_sql(sources, aggregate=i % 3 == 0),
                          reads=tuple(sources), owner="analytics", file=f"views/{name}.yaml"))

    marts = [f"mart.m{i:05d}" for i in range(counts["mart"])]
    for i, name in enumerate(marts):
        pool = intermediate if i % 4 else staging
        sources = rng.sample(pool, rng.randint(2, 5))
        pipeline = i % PIPELINES
        earlier = [a.name for a in assets[pipeline] if a.name.startswith("stage_")]
        depends = tuple(rng.sample(earlier, min(len(earlier), 2)))
        tables.append(Table(namespace="mart", name=name.split(".")[1], owner="finance", steward="governance",
                            certified=i % 10 == 0, file=f"tables/{name}.yaml"))
        assets[pipeline].append(PipelineAsset(name=f"mart_{i}", writes=name, sql=_join_sql(sources, aggregate=True),
                                              depends_on=depends))

    for i in range(counts["report"]):
        sources = rng.sample(marts, rng.randint(1, 3))
        views.append(View(namespace="report", name=f"r{i:05d}", sql=_join_sql(sources, aggregate=True),
                          reads=tuple(sources), owner="bi", file=f"views/report.r{i:05d}.yaml"))

    pipelines = tuple(Pipeline(name=f"p{p}", assets=tuple(a), file=f"pipelines/p{p}.yaml") for p, a in assets.items())
    env = Environment(name="prod", dialect="duckdb", tables=tuple(tables), views=tuple(views), pipelines=pipelines)
    return Project(name="warehouse", environments=(env,), default_environment="prod")


def _staging_sql(sources: list[str]) -> str:
    if len(sources) == 1:
        return (f"SELECT id, key, CAST(amount AS DECIMAL(12, 2)) AS amount, UPPER(status) AS status, "
                f"CAST(created_at AS DATE) AS created_at, category, region, score FROM {sources[0]} "
                "WHERE status IS NOT NULL")
    a, b = sources
    return (f"SELECT a.id, a.key, a.amount + COALESCE(b.amount, 0) AS amount, a.status, "
            f"CAST(a.created_at AS DATE) AS created_at, a.category, b.region, a.score "
            f"FROM {a} AS a LEFT JOIN {b} AS b ON a.key = b.key")


def _join_sql(sources: list[str], *, aggregate: bool) -> str:
    first = sources[0]
    joins = " ".join(f"JOIN {s} AS j{n} ON j{n}.key = t.key" for n, s in enumerate(sources[1:]))
    amounts = " + ".join(["t.amount"] + [f"j{n}.amount" for n in range(len(sources) - 1)])
    if aggregate:
        return (f"SELECT t.key, t.region, SUM({amounts}) AS amount, COUNT(*) AS rows_seen, MAX(t.created_at) "
                f"AS created_at, MAX(t.status) AS status FROM {first} AS t {joins} WHERE t.status <> 'VOID' "
                "GROUP BY t.key, t.region")
    return (f"SELECT t.key, t.region, {amounts} AS amount, t.created_at, t.category, t.status "
            f"FROM {first} AS t {joins}")


def _timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def _stats(values: list[float]) -> dict[str, float]:
    return {"median_ms": round(statistics.median(values) * 1000, 3), "worst_ms": round(max(values) * 1000, 3)}


def build(project: Project):
    """The rollup and its graph (what every answer walks)."""
    lineage = sync(project)
    lineage.graph  # noqa: B018 - built here so that no answer pays for it
    return lineage


def run(total: int, samples: int, seed: int) -> dict:
    project, generate_s = _timed(generate, total, seed)
    gc.collect()
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    lineage, build_s = _timed(build, project)
    _, heap_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # tracemalloc slows allocation-heavy code: time the build again without it.
    gc.collect()
    lineage, build_untraced_s = _timed(build, project)

    changed = _one_statement_changed(project)
    resynced, resync_s = _timed(sync, changed, previous=lineage)
    _, resync_unchanged_s = _timed(sync, project, previous=lineage)

    rng = random.Random(seed + 1)
    names = sorted(lineage.by_name)
    by_layer = {layer: [n for n in names if n.startswith(prefix)]
                for layer, prefix in (("raw", "raw."), ("staging", "staging."), ("intermediate", "int."),
                                      ("mart", "mart."), ("report", "report."))}
    picks = [n for layer in by_layer.values() for n in rng.sample(layer, min(len(layer), samples))]
    explorer = {}
    for depth in (1, 2, 10):
        times, holds, cut = [], [], 0
        for name in picks:
            answer, seconds = _timed(explore, lineage, OWNER, name, "both", depth)
            times.append(seconds)
            holds.append(answer.holds)
            cut += answer.cut
        explorer[f"depth_{depth}"] = {**_stats(times), "median_holds": statistics.median(holds),
                                      "answers_cut": cut, "answers": len(picks)}
    impact_times, counts = [], []
    for name in picks:
        answer, seconds = _timed(impact, lineage, OWNER, name)
        impact_times.append(seconds)
        counts.append(answer.count)
    index_figures = _index_figures(lineage, resynced)
    statuses: dict[str, int] = {}
    for asset in lineage.assets.values():
        key = asset.sql_status.value if asset.sql_status else "read or no SQL"
        statuses[key] = statuses.get(key, 0) + 1
    return {
        "machine": {"python": platform.python_version(), "platform": platform.platform(),
                    "processor": platform.processor() or platform.machine()},
        "assets": len(lineage.assets),
        "statements": sum(len(p.assets) for p in project.environments[0].pipelines) + len(project.environments[0].views),
        "edges": {"total": len(lineage.edges),
                  "declared": sum(1 for e in lineage.edges if e.mark == "declared"),
                  "parsed": sum(1 for e in lineage.edges if e.mark == "parsed")},
        "asset_statuses": statuses,
        "generate_s": round(generate_s, 3),
        "rollup_build_s": round(build_untraced_s, 3),
        "rollup_build_traced_s": round(build_s, 3),
        "rollup_heap_peak_mb": round(heap_peak / 2**20, 1),
        "process_peak_rss_mb": round(rss_after / 1024, 1),
        "rss_growth_during_build_mb": round((rss_after - rss_before) / 1024, 1),
        "resync_one_statement_changed": {"seconds": round(resync_s, 3), "statements_read": resynced.reads_performed},
        "resync_nothing_changed_s": round(resync_unchanged_s, 3),
        "explorer_both_directions": explorer,
        "epoch_index": index_figures,
        "impact": {**_stats(impact_times), "median_count": statistics.median(counts), "max_count": max(counts),
                   "answers": len(picks)},
    }


def _index_figures(lineage, resynced) -> dict:
    """Writing the rollup as an epoch of the Parquet index, a delta epoch, and reading it back."""
    import tempfile

    from prism_lineage.index import EpochIndex

    with tempfile.TemporaryDirectory() as scratch:
        index = EpochIndex(scratch)
        _, first_s = _timed(index.write, lineage)
        _, delta_s = _timed(index.write, resynced)
        back, read_s = _timed(index.lineage, lineage.project, lineage.environment)
        size = sum(p.stat().st_size for p in Path(scratch).rglob("*.parquet"))
    return {"first_epoch_write_s": round(first_s, 3), "one_statement_delta_write_s": round(delta_s, 3),
            "read_back_s": round(read_s, 3), "assets_read_back": len(back.assets),
            "edges_read_back": len(back.edges), "bytes_on_disk": size}


def _one_statement_changed(project: Project) -> Project:
    env = project.environments[0]
    first, *rest = env.pipelines
    asset = first.assets[0]
    edited = asset.model_copy(update={"sql": asset.sql + " AND id > 0" if "WHERE" in asset.sql else asset.sql + " WHERE id > 0"})
    pipeline = first.model_copy(update={"assets": (edited, *first.assets[1:])})
    return project.model_copy(update={"environments": (env.model_copy(update={"pipelines": (pipeline, *rest)}),)})


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.governance_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--assets", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=20, help="assets sampled per layer (default 20)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    args = parser.parse_args(argv)
    figures = run(args.assets, args.samples, args.seed)
    text = json.dumps(figures, indent=2)
    print(text)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
