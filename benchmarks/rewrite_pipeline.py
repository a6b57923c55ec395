"""The rewrite pipeline (issue 5, part 2) over TPC-H and TPC-DS: how long it takes beside
``explain`` of the same statements, what fired, and how the plans changed.

    python -m benchmarks.rewrite_pipeline [--repeat N]

Statements are lowered once, outside the timing; each figure is the median of the timed
passes (``timing.py``).  ``explain`` here is the end-to-end answer from the lowered plan
(``explain_statements``), the part of ``explain`` a rewrite could be compared with.
"""

from __future__ import annotations

import argparse
from collections import Counter

from prism_lineage.explain import explain_statements, lower
from prism_lineage.functions import FunctionRegistry
from prism_lineage.ir import Filter, Scan, walk_relations
from prism_lineage.rewrite import rewrite_statement

from . import workloads
from .timing import measure_many


def plan_figures(statements) -> Counter:
    """Operators, scanned columns, and filters sitting right on a table read."""
    out: Counter = Counter()
    for statement in statements:
        if statement.root is None:
            continue
        for relation in walk_relations(statement.root):
            out["operators"] += 1
            if isinstance(relation, Scan):
                out["scanned columns"] += len(relation.columns)
            if isinstance(relation, Filter) and isinstance(relation.input, Scan):
                out["filters on a table read"] += 1
    return out


def report(name: str, repeat: int) -> str:
    workload = workloads.load(name)
    registry = FunctionRegistry.default()
    lowered = {sql: lower(sql, workload.schema) for _, sql in workload.queries}
    calls = {
        "rewrite": (lambda sql: [rewrite_statement(s, registry) for s in lowered[sql]], None),
        "explain": (lambda sql: explain_statements(lowered[sql], registry), None),
    }
    records = measure_many(calls, workload.queries, repeat=repeat, budget=120)
    fired: Counter = Counter()
    before, after = Counter(), Counter()
    for statements in lowered.values():
        results = [rewrite_statement(s, registry) for s in statements]
        fired.update(name for r in results for name in r.fired)
        before += plan_figures(statements)
        after += plan_figures([r.rewritten for r in results])
    rewrite_s, explain_s = records["rewrite"]["total_s"], records["explain"]["total_s"]
    lines = [f"{workload.label}: {len(workload.queries)} queries; rewrite {rewrite_s:.3f} s, explain "
             f"{explain_s:.3f} s (ratio {rewrite_s / explain_s:.2f}; median of {records['rewrite']['runs']} runs)"]
    lines.append("  fired in queries: " + ", ".join(f"{k} {v}" for k, v in sorted(fired.items())))
    for key in ("operators", "scanned columns", "filters on a table read"):
        lines.append(f"  {key}: {before[key]} → {after[key]}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    for name in workloads.NAMES:
        print(report(name, args.repeat))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
