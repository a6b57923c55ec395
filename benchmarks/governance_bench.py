"""Governance lineage at warehouse scale: a generated project of 10,000 assets.

    python -m benchmarks.governance_bench [--assets N] [--samples K] [--seed S] [--json PATH]
    python -m benchmarks.governance_bench --mode control-plane [--assets N] [--jobs 1,auto] [--json PATH]

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

``--mode control-plane`` measures the control plane as people use it, each step a process of
its own on the project written as native YAML: a full ``prism-lineage sync`` (the console script,
as users run it) into an empty index with each
``--jobs`` value (wall time, CPU time with the workers', peak RSS of the process and of its
largest child — ``peak_rss_worker_mb`` is ``getrusage``'s figure for all children: a reading
worker, the ``git`` the sync runs, or the child that writes a rebuilt store, whose RSS counts the
pages it shares with the sync since the fork; ``peak_pss_tree_mb``: the sync and all its children
together, each shared page counted once), a sync after nothing changed, one after one statement changed; sqlglot's own
parse + qualify of the same statements on one core (the floor a full sync is compared with, per
core); then answers from the store: ``lineage`` at depths 1, 2 and 10 (both directions) and
``lineage impact`` over sampled assets, in process (``StoreReader``) and as whole
``prism-lineage`` processes (median and worst).  The load average is recorded before, during
and after: the machine is shared.
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


def run_control_plane(total: int, seed: int, *, samples: int = 100, jobs: tuple[str, ...] = ("1", "auto"),
                      baseline_sample: int = 10_000, cli_answers: bool = True, checkpoint=None,
                      pairs: int = 0) -> dict:
    """The control plane end to end, each step a process of its own (see the module docstring).
    ``checkpoint(figures)`` is called after each step (a long run keeps what it measured).
    ``pairs``: that many more (full sync, baseline) pairs at the end, back to back (``_pairs``)."""
    import shutil
    import tempfile

    project = generate(total, seed)
    figures: dict = _Checkpointed(checkpoint)
    figures.update({"machine": _machine(), "assets": total, "statements": _statements(project),
                    "cores": _cores(), "load_average_before": _load()})
    scratch = Path(tempfile.mkdtemp(prefix="prism-control-bench-"))
    try:
        root = scratch / "project"
        _, figures["write_project_yaml_s"] = _timed(write_native, project, root)
        index = None
        for jobs_value in jobs:
            index = scratch / f"index-jobs-{jobs_value}"
            figures[f"full_sync_jobs_{jobs_value}"] = _sync_process(root, index, jobs_value)
        figures["nothing_changed_sync"] = _sync_process(root, index, jobs[-1])
        write_native(_one_statement_changed(project), root)
        figures["one_statement_changed_sync"] = _sync_process(root, index, jobs[-1])
        figures["baseline_sqlglot_parse_qualify"] = _baseline(project, index, baseline_sample)
        full = figures[f"full_sync_jobs_{jobs[-1]}"]
        per_core = figures["baseline_sqlglot_parse_qualify"]["cpu_s_all_statements"] / figures["cores"]
        figures["full_sync_wall_over_baseline_per_core"] = round(full["wall_s"] / per_core, 3) if per_core else None
        picks = _picks(project, samples, seed)
        figures["api_in_process"] = _api_figures(index, picks)
        if cli_answers:
            figures["cli_whole_process"] = _cli_answer_figures(root, index, picks)
        figures["index_bytes_on_disk"] = sum(p.stat().st_size for p in index.rglob("*") if p.is_file())
        figures["store_bytes"] = (index / "warehouse" / "prod" / "current.sqlite3").stat().st_size
        if pairs:
            figures["pairs"] = _pairs(_one_statement_changed(project), root, index, scratch, jobs[-1], baseline_sample,
                                      pairs, figures["cores"])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    figures["load_average_after"] = _load()
    return dict(figures)


def _pairs(project: Project, root: Path, index: Path, scratch: Path, jobs: str, baseline_sample: int, count: int,
           cores: int) -> dict:
    """``count`` pairs of (a full sync from nothing, sqlglot's parse + qualify of the same
    statements): this machine's speed drifts by as much as a third within minutes, so a ratio is
    only worth its pair, and the figure to quote is the median of the pairs' ratios.  Each pair's
    baseline is timed in two halves of its sample, one just before the sync and one just after
    it, so that a drift over the pair weighs on both sides alike (session 9: back to back in
    alternating order, the same baseline took 100-152 s of CPU within twenty minutes, while the
    sync moved far less); each half's own figure is kept, to show the drift.
    ``index``: a synced index of ``project`` (the baseline's columns of the views)."""
    import shutil

    found = []
    for i in range(count):
        fresh = scratch / f"index-pair-{i}"
        shutil.rmtree(fresh, ignore_errors=True)
        before = _baseline(project, index, baseline_sample, part=(0, 2))
        sync = _sync_process(root, fresh, jobs)
        after = _baseline(project, index, baseline_sample, part=(1, 2))
        shutil.rmtree(fresh, ignore_errors=True)
        timed = before["statements_timed"] + after["statements_timed"]
        cpu = (before["cpu_s_timed"] + after["cpu_s_timed"]) * before["statements_all"] / timed if timed else 0.0
        per_core = cpu / cores
        found.append({"order": "baseline half, sync, baseline half",
                      "sync_wall_s": sync["wall_s"], "sync_cpu_s": sync["cpu_s"],
                      "baseline_cpu_s": round(cpu, 3),
                      "baseline_cpu_s_before": before["cpu_s_all_statements"],
                      "baseline_cpu_s_after": after["cpu_s_all_statements"],
                      "wall_over_baseline_per_core": round(sync["wall_s"] / per_core, 3) if per_core else None,
                      "load_average": _load()})
    ratios = sorted(p["wall_over_baseline_per_core"] for p in found if p["wall_over_baseline_per_core"])
    return {"pairs": found, "median_wall_over_baseline_per_core": statistics.median(ratios) if ratios else None,
            "min": ratios[0] if ratios else None, "max": ratios[-1] if ratios else None}


class _Checkpointed(dict):
    """Figures that are handed to ``checkpoint`` each time one is set."""

    def __init__(self, checkpoint):
        super().__init__()
        self.checkpoint = checkpoint

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        if self.checkpoint is not None:
            self.checkpoint(dict(self))


def _cores() -> int:
    import os

    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _load() -> list[float]:
    import os

    return [round(x, 2) for x in os.getloadavg()]


# One ``prism-lineage sync`` as users run it: the console script's own ending (``cli.console_main``:
# after a sync, no interpreter teardown), its ``-o json`` summary on stdout, then one more line
# from an exit handler registered before the command ran (so it runs after the command's own):
# the process's figures.
_SYNC = """
import atexit, json, resource, sys, time
start = time.perf_counter()

def figures():
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({"in_process_wall_s": round(time.perf_counter() - start, 3),
                      "cpu_s": round(me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime, 3),
                      "peak_rss_mb": round(me.ru_maxrss / 1024, 1),
                      "peak_rss_worker_mb": round(children.ru_maxrss / 1024, 1)}), flush=True)

atexit.register(figures)
from prism_lineage.cli import console_main
sys.argv = ["prism-lineage", "sync", "--project", sys.argv[1], "--index", sys.argv[2], "--jobs", sys.argv[3],
            "-o", "json"]
console_main()
"""


def _sync_process(root: Path, index: Path, jobs: str) -> dict:
    """One ``prism-lineage sync`` as a process of its own: wall time (the whole process: start-up,
    the sync, its ending), CPU time (with its workers'), peak RSS.  ``in_process_wall_s``: from the
    process's first line to its exit handlers (the interpreter's start-up left out)."""
    import subprocess

    gc.collect()
    load = _load()
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-c", _SYNC, str(root), str(index), jobs], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    with _TreeMemory(process.pid) as memory:
        out, err = process.communicate()
    wall = time.perf_counter() - start
    if process.returncode != 0:
        raise subprocess.CalledProcessError(process.returncode, "prism-lineage sync", out, err)
    done = subprocess.CompletedProcess(process.args, 0, out, err)
    *summary_lines, figures_line = done.stdout.strip().splitlines()
    summary = json.loads("\n".join(summary_lines))
    return {"wall_s": round(wall, 3), "statements_read": summary["read"], "unchanged": summary["unchanged"],
            "failed": summary["failed"], "workers": summary["workers"], "epoch": summary["epoch"],
            **json.loads(figures_line), "peak_pss_tree_mb": memory.peak_mb, "jobs": jobs, "load_average": load}


class _TreeMemory:
    """The peak memory of a process and its descendants together, sampled every 0.25 s: the sum
    of their proportional set sizes (PSS, ``/proc/PID/smaps_rollup``), in which a page shared by
    several of them (a forked child's copy-on-write pages) is counted once in all — the memory
    the sync really takes, where each one's RSS counts shared pages again.  None where /proc is
    not there."""

    def __init__(self, pid: int):
        self.pid, self.peak_mb = pid, None
        import threading

        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self):
        if Path("/proc/self/smaps_rollup").exists():
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _sample(self) -> None:
        while not self._stop.wait(0.25):
            total = sum(_pss_kb(pid) for pid in _tree(self.pid))
            if total:
                self.peak_mb = max(self.peak_mb or 0.0, round(total / 1024, 1))


def _tree(root: int) -> list[int]:
    """``root`` and its descendants (from each process's parent in /proc/PID/stat)."""
    import os

    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(name))
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, ()))
    return found


def _pss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _baseline(project: Project, index: Path, sample: int, part: tuple[int, int] | None = None) -> dict:
    """sqlglot's own parse + qualify of the same statements (one core), against the columns the
    sync worked out — the floor a sync is compared with.  A sample is timed and scaled when the
    project has more statements.  ``part`` (i, n): only the i-th of n interleaved slices of that
    sample (``_pairs`` times a pair's baseline in two halves, around the sync)."""
    import sqlglot
    from sqlglot.errors import SqlglotError
    from sqlglot.optimizer.qualify import qualify
    from sqlglot.schema import MappingSchema

    from prism_lineage.index import EpochIndex

    env = project.environments[0]
    statements = [v.sql for v in env.views] + [a.sql for p in env.pipelines for a in p.assets]
    lineage = EpochIndex(index / "warehouse" / "prod").lineage("warehouse", "prod")
    outputs = {}
    for asset, keys in lineage.ledger_by_asset.items():
        read = lineage.ledger[keys[0]]
        if read.outputs:
            outputs[lineage.assets[asset].full_name] = read.outputs
    schema: dict = {}
    for t in env.tables:
        columns = [c.name for c in t.columns] or list(outputs.get(t.full_name, ()))
        schema.setdefault(t.namespace, {})[t.name] = {c: "varchar" for c in columns}
    for v in env.views:
        schema.setdefault(v.namespace, {})[v.name] = {c: "varchar" for c in outputs.get(v.full_name, ())}
    rng = random.Random(1)
    chosen = statements if len(statements) <= sample else rng.sample(statements, sample)
    if part is not None:
        chosen = chosen[part[0]::part[1]]
    failed = 0
    # Built once, as a reader that knows the catalog would (a dict given to ``qualify`` is
    # normalised again on every call: every table of the warehouse per statement).
    mapping = MappingSchema(schema, dialect="duckdb")
    start_cpu, start = time.process_time(), time.perf_counter()
    for sql in chosen:
        try:
            qualify(sqlglot.parse_one(sql, read="duckdb"), schema=mapping, dialect="duckdb")
        except SqlglotError:
            failed += 1
    cpu, wall = time.process_time() - start_cpu, time.perf_counter() - start
    scale = len(statements) / len(chosen)
    return {"statements_timed": len(chosen), "statements_all": len(statements), "failed": failed,
            "cpu_s_timed": round(cpu, 3),
            "wall_s_timed": round(wall, 3), "cpu_s_all_statements": round(cpu * scale, 3)}


def _picks(project: Project, samples: int, seed: int) -> list[str]:
    """``samples`` assets drawn across the layers."""
    env = project.environments[0]
    names = sorted([t.full_name for t in env.tables] + [v.full_name for v in env.views])
    rng = random.Random(seed + 1)
    return rng.sample(names, min(samples, len(names)))


def _api_figures(index: Path, picks: list[str]) -> dict:
    """The store's read path in process (``StoreReader``): each answer's time, median and worst."""
    from prism_lineage.control import open_store

    figures = {}
    with open_store(index, "warehouse", "prod") as store:
        owner = store.viewer(None)
        for depth in (1, 2, 10):
            times, holds, cut = [], [], 0
            for name in picks:
                answer, seconds = _timed(store.explore, owner, name, "both", depth)
                times.append(seconds)
                holds.append(answer.holds)
                cut += answer.cut
            figures[f"lineage_depth_{depth}"] = {**_stats(times), "median_holds": statistics.median(holds),
                                                 "answers_cut": cut}
        times, counts = [], []
        for name in picks:
            answer, seconds = _timed(store.impact, owner, name)
            times.append(seconds)
            counts.append(answer.count)
        figures["impact"] = {**_stats(times), "median_count": statistics.median(counts), "max_count": max(counts)}
    figures["answers_each"] = len(picks)
    return figures


def _cli_answer_figures(root: Path, index: Path, picks: list[str]) -> dict:
    """``prism-lineage lineage … --index`` as whole processes: wall time (median, worst) and the
    CPU time of the median run."""
    import shutil
    import subprocess

    command = shutil.which("prism-lineage") or str(Path(sys.executable).with_name("prism-lineage"))
    # The package's bytecode, as an installed package has it (pip compiles it on install): an
    # editable checkout under PYTHONDONTWRITEBYTECODE would otherwise compile every module the
    # command imports on every run — a cost of the checkout, not of the command.
    import compileall

    import prism_lineage

    compileall.compile_dir(str(Path(prism_lineage.__file__).parent), quiet=1)
    figures = {"load_average": _load(), "bytecode_compiled": True}
    for label, extra in (("lineage_depth_1", ["--depth", "1"]), ("lineage_depth_2", ["--depth", "2"]),
                         ("lineage_depth_10", ["--depth", "10"]), ("impact", None)):
        times, cpu = [], []
        for name in picks:
            argv = ([command, "lineage", "impact", name] if extra is None else [command, "lineage", name, *extra])
            argv += ["--project", str(root), "--index", str(index), "-o", "json"]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
            times.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        figures[label] = {**_stats(times), "median_cpu_ms": round(statistics.median(cpu) * 1000, 1)}
    figures["answers_each"] = len(picks)
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

    # libyaml's emitter when PyYAML has it: at 100,000 assets the pure-Python one took five minutes
    # of a run whose subject is the sync (the same documents, loaded back equal).
    text = yaml.dump(document, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=False)
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
    parser.add_argument("--samples", type=int, default=20,
                        help="all: assets sampled per layer (default 20); control-plane: assets sampled (100)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    parser.add_argument("--mode", choices=("all", "control-plane"), default="all",
                        help="all: the in-memory rollup, re-syncs, explorer, impact and index figures (default); "
                             "control-plane: prism-lineage sync and answers from the store, process by process")
    parser.add_argument("--jobs", default="1,auto",
                        help="control-plane: the --jobs values of the full syncs, comma-separated (default 1,auto)")
    parser.add_argument("--baseline-sample", type=int, default=10_000,
                        help="control-plane: statements sqlglot parses and qualifies for the baseline (scaled)")
    parser.add_argument("--no-cli", action="store_true", help="control-plane: skip the whole-process answers")
    parser.add_argument("--pairs", type=int, default=0,
                        help="control-plane: this many more (full sync, baseline) pairs back to back, and the "
                             "median of their ratios (the machine's speed drifts between runs)")
    args = parser.parse_args(argv)
    if args.pairs < 0:
        parser.error(f"--pairs must be 0 or more, not {args.pairs}")
    if args.mode == "control-plane":
        def checkpoint(found: dict) -> None:
            if args.json:
                args.json.parent.mkdir(parents=True, exist_ok=True)
                args.json.write_text(json.dumps(found, indent=2) + "\n")

        figures = run_control_plane(args.assets, args.seed, samples=args.samples if args.samples != 20 else 100,
                                    jobs=tuple(args.jobs.split(",")), baseline_sample=args.baseline_sample,
                                    cli_answers=not args.no_cli, checkpoint=checkpoint, pairs=args.pairs)
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
