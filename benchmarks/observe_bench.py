"""How fast observations are ingested: OpenLineage run events and a warehouse query log.

    python -m benchmarks.observe_bench [--events N] [--log-runs N] [--seed S] [--json PATH]

* **events/s**: ``N`` Spark-shaped COMPLETE run events (made with the openlineage-python client's
  classes: two to four inputs, one output, a column-lineage facet of 5–20 fields, a schema facet,
  run facets) over the TPC-DS tables, parsed, validated against the schemas, mapped to assets and
  recorded (``Ingestor.events``) — the whole of ``prism-lineage observe EVENTS`` after loading.
  Also one event per call, as ``POST /api/v1/lineage`` does (``Ingestor.post_lineage``), for the
  per-request cost.
* **log statements/s**: a query log of ``N`` runs made from the TPC-DS workload
  (``benchmarks/query_log_gen.py``: 99 reports materialised by CREATE TABLE … AS, refreshed with a
  Zipf-like frequency and other literals, ad hoc queries, failures), read as JSON lines,
  fingerprinted, each distinct statement analysed once, recorded (``Ingestor.query_log``); with
  the **dedup ratio** (statements read / distinct statements analysed).
* with ``--read-path N``: what observed edges cost the store's read path: a generated project of
  ``N`` assets (benchmarks/governance_bench.py) synced into an index, explorer answers at depth 10
  from the store (``StoreReader.explore``) without an observed store, then with one observed edge
  on every pair a declared or parsed edge joins (the same reach, twice the rows to walk).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

from .query_log_gen import assets as workload_assets
from .query_log_gen import generate
from .workloads import load


def spark_events(tables: list[str], columns: dict[str, list[str]], count: int, seed: int) -> list[str]:
    from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
    from openlineage.client.facet_v2 import column_lineage_dataset as cl
    from openlineage.client.facet_v2 import parent_run, processing_engine_run, schema_dataset
    from openlineage.client.serde import Serde

    rng = random.Random(seed)
    now = datetime.now(tz=timezone.utc)
    lines = []
    for number in range(count):
        read = rng.sample(tables, rng.randint(2, 4))
        target = f"reports.q{rng.randint(1, 99):02d}"
        fields = {}
        for field_number in range(rng.randint(5, 20)):
            table = rng.choice(read)
            column = rng.choice(columns[table])
            subtype = rng.choice(("IDENTITY", "TRANSFORMATION", "AGGREGATION"))
            fields[f"f{field_number}"] = cl.Fields(inputFields=[cl.InputField(
                "hive://warehouse", f"tpcds.{table}", column, [cl.Transformation("DIRECT", subtype, masking=False)])])
        dataset = [cl.InputField("hive://warehouse", f"tpcds.{read[0]}", columns[read[0]][0],
                                 [cl.Transformation("INDIRECT", "JOIN")])]
        event = RunEvent(
            eventType=RunState.COMPLETE,
            eventTime=(now - timedelta(seconds=rng.randrange(86400 * 7))).isoformat(),
            producer="https://github.com/OpenLineage/OpenLineage/tree/1.24.0/integration/spark",
            run=Run(runId=str(uuid.UUID(int=rng.getrandbits(128), version=4)), facets={
                "processing_engine": processing_engine_run.ProcessingEngineRunFacet(version="3.5.1", name="spark"),
                "parent": parent_run.ParentRunFacet(run=parent_run.Run(runId=str(uuid.UUID(int=number + 1, version=4))),
                                                    job=parent_run.Job(namespace="spark", name="nightly")),
            }),
            job=Job(namespace="spark", name=f"nightly.insert_{target}"),
            inputs=[InputDataset("hive://warehouse", f"tpcds.{t}", facets={"schema": schema_dataset.SchemaDatasetFacet(
                fields=[schema_dataset.SchemaDatasetFacetFields(c, "string") for c in columns[t][:10]])}) for t in read],
            outputs=[OutputDataset("hive://warehouse", target,
                                   facets={"columnLineage": cl.ColumnLineageDatasetFacet(fields=fields, dataset=dataset)})],
        )
        lines.append(Serde.to_json(event))
    return lines


def read_path(total: int, seed: int, samples: int = 40) -> dict:
    import sqlite3
    import statistics

    from prism_lineage.control.reading import StoreReader
    from prism_lineage.control.sync import sync
    from prism_lineage.openlineage.observed import ObservedEdge
    from prism_lineage.openlineage.store import ObservedStore

    from .governance_bench import generate, write_native

    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        write_native(generate(total, seed), base / "project")
        sync(base / "project", base / "index")
        root = next((base / "index").glob("*/*"))
        connection = sqlite3.connect(root / "current.sqlite3")
        names = [name for (name,) in connection.execute("SELECT full_name FROM assets")]
        pairs = connection.execute(
            "SELECT s.asset_id, d.asset_id FROM edges e JOIN assets s ON s.id = e.src JOIN assets d ON d.id = e.dst "
            "WHERE e.scope IS NULL").fetchall()
        connection.close()
        chosen = random.Random(seed).sample(names, min(samples, len(names)))

        def answers() -> dict:
            with StoreReader(root) as reader:
                viewer = reader.viewer(None)
                times = []
                for name in chosen:
                    start = time.perf_counter()
                    reader.explore(viewer, name, "both", 10)
                    times.append((time.perf_counter() - start) * 1000)
            return {"median_ms": round(statistics.median(times), 2), "worst_ms": round(max(times), 2)}

        without = answers()
        now = datetime.now(tz=timezone.utc)
        ObservedStore(root).record([ObservedEdge(s, d, "event", "job", None, now) for s, d in pairs], observed=True,
                                   now=now)
        return {"assets": len(names), "edges": len(pairs), "explore_depth_10_without_observed": without,
                "explore_depth_10_with_observed": answers(), "observed_edges": len(pairs)}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--log-runs", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--read-path", type=int, default=0, metavar="N",
                        help="also time store answers with and without observed edges on a project of N assets")
    args = parser.parse_args(argv)

    from prism_lineage.openlineage.ingest import Ingestor
    from prism_lineage.openlineage.query_log import json_records

    workload = load("tpcds")
    assets = workload_assets(workload)
    tables = sorted(workload.schema)
    columns = {t: list(workload.schema[t]) for t in tables}
    figures: dict = {"machine": platform.processor() or platform.machine(), "python": platform.python_version()}

    lines = spark_events(tables, columns, args.events, args.seed)
    size = sum(len(line) for line in lines)
    with tempfile.TemporaryDirectory() as scratch:
        ingestor = Ingestor(Path(scratch) / "batch", assets)
        ingestor.events(lines[:50])  # warm: schema validators compiled, store created
        start, cpu = time.perf_counter(), time.process_time()
        summary = ingestor.events(lines)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        assert not summary.rejected, summary.rejected[:3]
        # The CPU time too: on a shared machine the wall clock also counts other people's work.
        figures["events"] = {"count": len(lines), "mean_bytes": round(size / len(lines)), "seconds": round(elapsed, 3),
                             "cpu_seconds": round(cpu, 3), "per_second": round(len(lines) / elapsed),
                             "per_cpu_second": round(len(lines) / cpu), "edges_recorded": summary.edges}
        single = Ingestor(Path(scratch) / "single", assets)
        sample = [line.encode() for line in lines[:500]]
        single.post_lineage(sample[0])
        start = time.perf_counter()
        for body in sample:
            status, _ = single.post_lineage(body)
            assert status == 201
        elapsed = time.perf_counter() - start
        figures["post_lineage"] = {"count": len(sample), "ms_per_request": round(elapsed / len(sample) * 1000, 2),
                                   "per_second": round(len(sample) / elapsed)}

        records = [json.dumps(r) for r in generate(workload, args.log_runs, seed=args.seed)]
        log = Ingestor(Path(scratch) / "log", assets)
        start, cpu = time.perf_counter(), time.process_time()
        summary, log_figures = log.query_log(json_records(records))
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        assert not summary.rejected
        figures["query_log"] = {"records": len(records), **log_figures, "seconds": round(elapsed, 3),
                                "cpu_seconds": round(cpu, 3),
                                "statements_per_cpu_second": round(log_figures["statements"] / cpu),
                                "records_per_second": round(len(records) / elapsed),
                                "statements_per_second": round(log_figures["statements"] / elapsed),
                                "edges_recorded": summary.edges, "skipped": summary.skipped}
    if args.read_path:
        figures["read_path"] = read_path(args.read_path, args.seed)
    print(json.dumps(figures, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return figures


if __name__ == "__main__":
    main()
