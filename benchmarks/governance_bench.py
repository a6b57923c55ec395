"""Governance lineage at warehouse scale: a generated project of 10,000 assets.

    python -m benchmarks.governance_bench [--assets N] [--samples K] [--seed S] [--json PATH]
    python -m benchmarks.governance_bench --mode index-sync [--assets N] [--cli] [--json PATH]

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

``--mode index-sync`` measures what ``prism-lineage lineage … --index DIR`` does run after run:
a full sync into an empty index, then a sync after one statement changed and one after nothing
changed, each starting from the read ledger the index holds (read the previous epoch, sync,
write the new epoch, read the answer back), with how many statements each read.  ``--cli``
also writes the project as native YAML and times the command itself, end to end.
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
        "machine": _machine(),
        "assets": len(lineage.assets),
        "statements": _statements(project),
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


def _machine() -> dict:
    return {"python": platform.python_version(), "platform": platform.platform(),
            "processor": platform.processor() or platform.machine()}


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


def run_index_sync(total: int, seed: int, cli: bool) -> dict:
    """Full sync vs a one-statement re-sync, both through the epoch index (see the docstring)."""
    import tempfile

    from prism_lineage.index import EpochIndex

    project = generate(total, seed)
    changed = _one_statement_changed(project)
    figures: dict = {"assets": total, "statements": _statements(project)}
    with tempfile.TemporaryDirectory() as scratch:
        index = EpochIndex(Path(scratch) / "warehouse" / "prod")
        for label, version in (("full_sync_empty_index", project), ("one_statement_changed", changed),
                               ("nothing_changed", changed)):
            gc.collect()
            figures[label] = _through_index(index, version)
        figures["bytes_on_disk"] = sum(p.stat().st_size for p in Path(scratch).rglob("*.parquet"))
        figures["ledger_bytes_on_disk"] = sum(p.stat().st_size for p in
                                              (index.root / "compile" / "statements").glob("*.parquet"))
    if cli:
        figures["cli"] = _cli_figures(project, changed)
    return figures


def _through_index(index, project: Project) -> dict:
    """One CLI-like sync: the previous epoch's ledger, the sync, the new epoch, the answer read back."""
    start = time.perf_counter()
    previous, read_previous_s = _timed(lambda: index.lineage("warehouse", "prod") if index.epochs() else None)
    lineage, sync_s = _timed(sync, project, previous=previous)
    _, write_s = _timed(index.write, lineage)
    back, read_back_s = _timed(index.lineage, "warehouse", "prod", with_ledger=False)
    total = time.perf_counter() - start
    assert len(back.edges) == len(lineage.edges)
    return {"seconds": round(total, 3), "statements_read": lineage.reads_performed,
            "read_previous_epoch_s": round(read_previous_s, 3), "sync_s": round(sync_s, 3),
            "write_epoch_s": round(write_s, 3), "read_answer_back_s": round(read_back_s, 3)}


def _cli_figures(project: Project, changed: Project) -> dict:
    """``prism-lineage lineage impact … --index DIR`` run three times on the project written as
    native YAML: from an empty index, after one statement changed, after nothing changed."""
    import tempfile
    from contextlib import redirect_stdout
    from io import StringIO

    from prism_lineage.cli import main as cli_main
    from prism_lineage.governance.loading import load_project
    from prism_lineage.governance.sql_reading import SqlReader

    reads = [0]
    original = SqlReader.read

    def counted(self, sql, dialect):
        reads[0] += 1
        return original(self, sql, dialect)

    figures = {}
    with tempfile.TemporaryDirectory() as scratch:
        root, index = Path(scratch) / "project", Path(scratch) / "index"
        write_native(project, root)
        argv = ["lineage", "impact", "raw.t00000", "--project", str(root), "--index", str(index), "--sync", "-o",
                "json"]
        SqlReader.read = counted
        try:
            for label, version in (("full_sync_empty_index", None), ("one_statement_changed", changed),
                                   ("nothing_changed", None)):
                if version is not None:
                    write_native(version, root)
                reads[0] = 0
                start = time.perf_counter()
                with redirect_stdout(StringIO()):
                    assert cli_main(argv) == 0
                figures[label] = {"seconds": round(time.perf_counter() - start, 3), "statements_read": reads[0]}
        finally:
            SqlReader.read = original
        _, load_s = _timed(load_project, root)
        figures["of_which_loading_the_yaml_s"] = round(load_s, 3)
    return figures


def write_native(project: Project, root: Path) -> None:
    """``project`` as a native project directory (docs/governance.md), one file per declaration."""
    env = project.environments[0]
    root.mkdir(parents=True, exist_ok=True)
    _dump(root / "project.yaml", {"name": project.name, "dialect": env.dialect, "environments": [env.name]})
    for declaration in (*env.tables, *env.views, *env.pipelines):
        _dump(root / declaration.file, declaration.model_dump(mode="json", exclude={"file"}, exclude_defaults=True))


def _dump(path: Path, document: dict) -> None:
    import yaml

    text = yaml.safe_dump(document, sort_keys=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:  # a changed version rewrites what changed only
        path.write_text(text)


def _statements(project: Project) -> int:
    env = project.environments[0]
    return sum(len(p.assets) for p in env.pipelines) + len(env.views)


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
    parser.add_argument("--mode", choices=("all", "index-sync"), default="all",
                        help="all: the rollup, re-syncs, explorer, impact and index figures (default); "
                             "index-sync: full sync vs one-statement re-sync through the epoch index")
    parser.add_argument("--cli", action="store_true",
                        help="with --mode index-sync: also time the command end to end on the project as YAML")
    args = parser.parse_args(argv)
    if args.mode == "index-sync":
        figures = {"machine": _machine(), **run_index_sync(args.assets, args.seed, args.cli)}
    else:
        figures = run(args.assets, args.samples, args.seed)
    text = json.dumps(figures, indent=2)
    print(text)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
