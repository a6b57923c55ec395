"""Scale of ``explain --through-script``: the time of a script against its number of statements.

Part of ``python -m benchmarks.scale`` (its ``scripts`` section); alone:

    python -m benchmarks.scale_scripts [--families NAME,...] [--sizes 500,1000,...] [--timeout S]
                                       [--code DIR] [--json PATH]

Families (each a function of the number of statements ``n``):

* ``ctas_chain``: ``n`` ``CREATE TABLE t_i AS SELECT … FROM t_{i-1} WHERE …``, each reading
  the table before, then a query of the last (issue 15 item 14: this was quadratic — each
  statement walked the plans of every statement before it; 1,000 statements took 87 s);
* ``ctas_mixed``: the same chain with a join to the base table every third statement, ``ORDER
  BY … LIMIT`` every fifth, an aggregate every seventh, an ``INSERT`` into the new table every
  eleventh and an ``UPDATE`` of it every thirteenth;
* ``view_chain``: ``n`` ``CREATE VIEW v_i AS SELECT … FROM v_{i-1} WHERE …``, then a query of the
  last (session 7: each read lowered the view's query again, and the view's before it, down the
  chain — 400 views took 36 s).

Each point runs in a fresh process (so a slow one can be stopped at ``--timeout``, and memory
does not carry over): ``explain(script, schema, through_script=True)`` once, its wall and CPU
time (the process's, the deep-stack worker thread included; imports are not timed) and the load
average when it ended (the machine is shared: CPU time is what to compare).  ``--code DIR``
measures the ``prism_lineage`` package found in DIR instead (an older checkout: before/after).
The log-log slope of the CPU time over the upper half of the sizes says how the cost grows
(1: linear).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

SCHEMA = {"base": {"k": "int", "v": "int", "d": "int"}}


def ctas_chain(n: int) -> str:
    out = ["CREATE TABLE t0 AS SELECT k, v, d FROM base WHERE k > 0"]
    out += [f"CREATE TABLE t{i} AS SELECT k, v + 1 AS v, d FROM t{i - 1} WHERE k > {i}" for i in range(1, n)]
    out.append(f"SELECT k, v, d FROM t{n - 1}")
    return ";\n".join(out) + ";\n"


def ctas_mixed(n: int) -> str:
    out = ["CREATE TABLE t0 AS SELECT k, v, d FROM base WHERE k > 0"]
    for i in range(1, n):
        if i % 3 == 0:
            query = f"SELECT c.k, c.v + b.v AS v, c.d FROM t{i - 1} AS c JOIN base AS b ON b.k = c.k"
        elif i % 5 == 0:
            query = f"SELECT k, v, d FROM t{i - 1} ORDER BY d LIMIT 100"
        elif i % 7 == 0:
            query = f"SELECT k, SUM(v) AS v, MAX(d) AS d FROM t{i - 1} GROUP BY k"
        else:
            query = f"SELECT k, v + 1 AS v, d FROM t{i - 1} WHERE d > {i}"
        out.append(f"CREATE TABLE t{i} AS {query}")
        if i % 11 == 0:
            out.append(f"INSERT INTO t{i} (k, v) SELECT k, v FROM base WHERE d < {i}")
        if i % 13 == 0:
            out.append(f"UPDATE t{i} SET d = 0 WHERE v > {i}")
    out.append(f"SELECT k, v, d FROM t{n - 1} ORDER BY v")
    return ";\n".join(out) + ";\n"


def view_chain(n: int) -> str:
    out = ["CREATE VIEW v0 AS SELECT k, v, d FROM base WHERE k > 0"]
    out += [f"CREATE VIEW v{i} AS SELECT k, v + 1 AS v, d FROM v{i - 1} WHERE k > {i}" for i in range(1, n)]
    out.append(f"SELECT k, v, d FROM v{n - 1}")
    return ";\n".join(out) + ";\n"


FAMILIES: dict[str, tuple[Callable[[int], str], str]] = {
    "ctas_chain": (ctas_chain, "CREATE TABLE AS statements in the chain"),
    "ctas_mixed": (ctas_mixed, "CREATE TABLE AS statements (with INSERT/UPDATE)"),
    "view_chain": (view_chain, "CREATE VIEW statements in the chain"),
}
SIZES = (500, 1000, 3000, 10000)

# Run in the child process: explain the script once, print the figures as JSON.
_CHILD = """
import json, os, resource, sys, time
import prism_lineage
path, schema = sys.argv[1], json.loads(sys.argv[2])
text = open(path, encoding="utf-8").read()
prism_lineage.explain("SELECT 1")  # imports and first-call costs are not the script's
usage = resource.getrusage(resource.RUSAGE_SELF)
cpu0 = usage.ru_utime + usage.ru_stime
wall0 = time.perf_counter()
try:
    answer = prism_lineage.explain(text, schema, "duckdb", through_script=True)
    error = None
except prism_lineage.PrismError as failure:
    answer, error = None, f"{type(failure).__name__}: {failure}"
wall = time.perf_counter() - wall0
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({
    "wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime - cpu0, "max_rss_mb": usage.ru_maxrss / 1024,
    "statements": len(answer.statements) if answer else None, "error": error,
    "last_sources": sum(len(f.sources) for f in answer.statements[-1].fields) if answer else None,
    "loadavg": open("/proc/loadavg").read().split()[:3],
    "code": os.path.dirname(os.path.dirname(prism_lineage.__file__)),
}))
"""


def run_point(sql: str, timeout: float, code: Path | None) -> dict[str, Any]:
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = str(code) + os.pathsep + env.get("PYTHONPATH", "")
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False, encoding="utf-8") as handle:
        handle.write(sql)
    try:
        # From a neutral directory, so PYTHONPATH (``--code``) decides which prism_lineage runs.
        done = subprocess.run([sys.executable, "-c", _CHILD, handle.name, json.dumps(SCHEMA)], env=env,
                              capture_output=True, text=True, timeout=timeout, cwd=tempfile.gettempdir())
    except subprocess.TimeoutExpired:
        return {"timeout_s": timeout, "loadavg": open("/proc/loadavg").read().split()[:3]}
    finally:
        os.unlink(handle.name)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["exit %d" % done.returncode])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_family(name: str, sizes=SIZES, timeout: float = 600.0, code: Path | None = None) -> dict[str, Any]:
    from .scale import _progress, _slope

    generate, unit = FAMILIES[name]
    points = []
    for n in sizes:
        point = {"n": n, **run_point(generate(n), timeout, code)}
        point["prism.explain"] = point.get("cpu_s") if not point.get("error") else None
        points.append(point)
        _progress(f"{name} n={n}: {_describe(point)}")
        if "timeout_s" in point:
            break  # larger sizes would time out too
    return {"unit": unit, "points": points, "slope": {"cpu": _slope(points, "prism.explain")}}


def _describe(point: dict[str, Any]) -> str:
    load = " ".join(point.get("loadavg", []))
    if "timeout_s" in point:
        return f"not done in {point['timeout_s']:.0f} s (load {load})"
    if point.get("error"):
        return f"failed: {point['error']}"
    per = point["cpu_s"] / point["statements"] * 1000
    return (f"CPU {point['cpu_s']:.2f} s, wall {point['wall_s']:.2f} s, {per:.2f} ms CPU per statement, "
            f"{point['max_rss_mb']:.0f} MB, load {load}")


def table(result: dict[str, Any]) -> str:
    lines = []
    for name, family in result.items():
        slope = family["slope"]["cpu"]
        lines.append(f"{name} ({family['unit']}): slope of CPU time {'-' if slope is None else f'{slope:.2f}'}")
        lines.append(f"  {'n':>6}  {'CPU s':>8}  {'wall s':>8}  {'CPU ms/statement':>16}  {'MB':>6}  load average")
        for p in family["points"]:
            load = " ".join(p.get("loadavg", []))
            if "timeout_s" in p:
                lines.append(f"  {p['n']:>6}  not done in {p['timeout_s']:.0f} s{'':>27}  {load}")
            elif p.get("error"):
                lines.append(f"  {p['n']:>6}  failed: {p['error']}")
            else:
                per = p["cpu_s"] / p["statements"] * 1000
                lines.append(f"  {p['n']:>6}  {p['cpu_s']:>8.2f}  {p['wall_s']:>8.2f}  {per:>16.2f}  "
                             f"{p['max_rss_mb']:>6.0f}  {load}")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    from .workloads import ROOT

    parser = argparse.ArgumentParser(prog="python -m benchmarks.scale_scripts", description=__doc__.split("\n\n")[0])
    parser.add_argument("--families", default=",".join(FAMILIES), help=f"comma-separated, of: {', '.join(FAMILIES)}")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="numbers of statements, comma-separated")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per point at most (default 600)")
    parser.add_argument("--code", type=Path, help="measure the prism_lineage package in this directory instead")
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "scale_scripts.json")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.families.split(",") if n.strip()]
    unknown = [n for n in names if n not in FAMILIES]
    if unknown:
        parser.error(f"unknown families: {', '.join(unknown)}")
    sizes = tuple(int(s) for s in args.sizes.split(",") if s.strip())
    code = args.code.resolve() if args.code else None
    result = {name: run_family(name, sizes, args.timeout, code) for name in names}
    sys.stdout.write(table(result))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
