"""Many statements: ``prism-lineage explain --jobs`` on a query log.

    python -m benchmarks.many_statements [--statements 10000] [--jobs 1,auto] [--json PATH]

The log is every TPC-DS query, repeated in order until it holds ``--statements`` statements,
in one file.  Each run is the real command (a subprocess writing JSON lines to a file) and is
timed from outside, start-up included, with the CPU time it used (the command and its
workers), which other work on the machine does not inflate; the command's own
statements-per-second line (stderr) is kept too.  For reference: the time ``explain`` takes on the same statements in this
process, one after the other, and the time to cut the log into statements.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import workloads
from .workloads import ROOT


def build_log(count: int) -> tuple[str, dict]:
    tpcds = workloads.load("tpcds")
    texts = [sql.strip().rstrip(";").strip() for _, sql in tpcds.queries]
    statements = [texts[i % len(texts)] for i in range(count)]
    return ";\n\n".join(statements) + ";\n", tpcds.schema


def run_cli(log: Path, schema: Path, jobs: str) -> dict:
    command = [sys.executable, "-c", "import sys; from prism_lineage.cli import main; sys.exit(main())", "explain", str(log), "--schema", str(schema),
               "--format", "json", "--jobs", jobs]
    with tempfile.TemporaryFile("w+") as out:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(command, stdout=out, stderr=subprocess.PIPE, text=True, check=False)
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        out.seek(0)
        lines = sum(1 for _ in out)
    # CPU time of the command and its workers (reaped before it exits): unlike the wall time,
    # it does not grow when other work shares the machine.
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"jobs": jobs, "exit_code": done.returncode, "wall_s": elapsed, "cpu_s": cpu, "records": lines,
            "load_average": os.getloadavg()[0],
            "reported": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""}


def sequential_reference(text: str, schema: dict, sample: int = 500) -> dict:
    """In this process: the cost of cutting the log, and of ``explain`` on ``sample`` statements."""
    import gc

    import prism_lineage
    from prism_lineage.cli.batch import split_statements
    from prism_lineage.frontends.sql.dialects import get_dialect

    dialect = get_dialect(None)
    start = time.perf_counter()
    statements = list(split_statements(text, "log.sql", dialect))
    split_s = time.perf_counter() - start
    catalog = prism_lineage.Catalog.from_mapping(schema)
    gc.collect()
    start = time.perf_counter()
    for statement in statements[:sample]:
        prism_lineage.explain(statement.text, catalog)
    per_statement = (time.perf_counter() - start) / min(sample, len(statements))
    return {"split_s": split_s, "statements": len(statements), "explain_ms_per_statement": per_statement * 1000}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.many_statements", description=__doc__.split("\n\n")[0])
    parser.add_argument("--statements", type=int, default=10_000)
    parser.add_argument("--jobs", default="1,auto", help="comma-separated --jobs values to run (default 1,auto)")
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "many_statements.json")
    args = parser.parse_args(argv)
    text, schema = build_log(args.statements)
    result = {"statements": args.statements, "cores": os.cpu_count(), "chars": len(text), "runs": []}
    with tempfile.TemporaryDirectory() as folder:
        log, schema_file = Path(folder) / "log.sql", Path(folder) / "schema.json"
        log.write_text(text, encoding="utf-8")
        schema_file.write_text(json.dumps(schema), encoding="utf-8")
        result["reference"] = sequential_reference(text, schema)
        for jobs in (j.strip() for j in args.jobs.split(",") if j.strip()):
            print(f"… prism-lineage explain --jobs {jobs} on {args.statements} statements", file=sys.stderr, flush=True)
            result["runs"].append(run_cli(log, schema_file, jobs))
    reference = result["reference"]
    print(f"{args.statements} TPC-DS statements ({len(text) / 1e6:.1f} MB), {os.cpu_count()} cores")
    print(f"  cutting the log into statements: {reference['split_s']:.2f} s; explain alone: "
          f"{reference['explain_ms_per_statement']:.2f} ms a statement, one after the other "
          f"(= {1000 / reference['explain_ms_per_statement']:,.0f} statements/s on one core)")
    for run in result["runs"]:
        rate = run["records"] / run["wall_s"] if run["wall_s"] else 0
        print(f"  --jobs {run['jobs']:>4}: {run['wall_s']:.2f} s wall, {rate:,.0f} statements/s, {run['cpu_s']:.2f} s CPU "
              f"(= {run['records'] / run['cpu_s']:,.0f} statements per CPU second; load average "
              f"{run['load_average']:.2f}; exit {run['exit_code']}, {run['records']} records)")
        print(f"      the command said: {run['reported']}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
