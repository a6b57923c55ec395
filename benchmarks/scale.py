"""Scale: the time of ``explain`` against the size of a generated query.

    python -m benchmarks.scale [--repeat N] [--families wide,joins,...] [--json PATH] [--chart PATH]
                               [--profile FAMILY]

Families (each a function of one size ``n``):

* ``wide``: ``SELECT`` of ``n`` output fields (bare columns and expressions) from one table
  of ``n`` columns, with a filter;
* ``joins``: a chain of ``n`` joined tables, two output fields (first and last table);
* ``joins_all_fields``: the same chain with one output field per table: every field has
  join lineage from every join key, so the *answer* holds about ``n²`` sources;
* ``cte_chain``: ``n`` CTEs, each reading the previous one, with a filter in each.

For each size: ``explain`` (median of the runs, gc outside the timing, as ``timing.py``), and
sqlglot's parse and parse + qualify of the same text for reference.  The fitted log-log slope
over the upper half of the sizes says how the cost grows (1: linear, 2: quadratic).  The peak
memory (tracemalloc) of ``explain`` is measured on the largest query of each family.

``--governance`` adds the governance rollup's families (``scale_governance.py``: the time of
``sync`` against the size of a generated project, pipelines of thousands of assets).
``--scripts`` adds ``explain --through-script`` over scripts of thousands of statements
(``scale_scripts.py``: chains of ``CREATE TABLE … AS``, each reading the one before).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .timing import measure_many
from .workloads import ROOT

Generated = tuple[str, dict[str, dict[str, str]]]  # (SQL, schema)


def wide(n: int) -> Generated:
    columns = [f"c{i}" for i in range(n)]
    items = [c if i % 2 == 0 else f"{c} * 2 + c0 AS d{i}" for i, c in enumerate(columns)]
    sql = f"SELECT {', '.join(items)}\nFROM wide_table\nWHERE c0 > 0"
    return sql, {"wide_table": {c: "int" for c in columns}}


def _join_chain(n: int, fields: list[str]) -> str:
    joins = "".join(f"\nJOIN t{i} ON t{i}.k = t{i - 1}.k" for i in range(1, n))
    return f"SELECT {', '.join(fields)}\nFROM t0{joins}"


def _join_schema(n: int) -> dict[str, dict[str, str]]:
    return {f"t{i}": {"k": "int", f"v{i}": "int"} for i in range(n)}


def joins(n: int) -> Generated:
    fields = ["t0.v0"] + ([f"t{n - 1}.v{n - 1}"] if n > 1 else [])
    return _join_chain(n, fields), _join_schema(n)


def joins_all_fields(n: int) -> Generated:
    return _join_chain(n, [f"t{i}.v{i}" for i in range(n)]), _join_schema(n)


def cte_chain(n: int) -> Generated:
    ctes = ["c0 AS (SELECT k, v FROM base WHERE k > 0)"]
    ctes += [f"c{i} AS (SELECT k, v + 1 AS v FROM c{i - 1} WHERE k > {i})" for i in range(1, n)]
    sql = "WITH " + ",\n".join(ctes) + f"\nSELECT k, v FROM c{n - 1}"
    return sql, {"base": {"k": "int", "v": "int"}}


FAMILIES: dict[str, tuple[Callable[[int], Generated], tuple[int, ...], str]] = {
    "wide": (wide, (1, 10, 50, 100, 250, 500, 1000, 2000), "output fields"),
    "joins": (joins, (1, 5, 10, 25, 50, 100, 200), "joined tables"),
    "joins_all_fields": (joins_all_fields, (1, 5, 10, 25, 50, 100, 200), "joined tables, a field each"),
    "cte_chain": (cte_chain, (1, 10, 25, 50, 100, 250, 500), "CTEs in the chain"),
}


def _callables(schema) -> dict[str, Callable[[str], Any]]:
    import sqlglot
    from sqlglot.optimizer.qualify import qualify
    from sqlglot.schema import MappingSchema

    import prism_lineage
    from prism_lineage.functions import FunctionRegistry

    catalog = prism_lineage.Catalog.from_mapping(schema)
    functions = FunctionRegistry.default()
    mapping = MappingSchema(schema)
    return {
        "prism.explain": lambda sql: prism_lineage.explain(sql, catalog, functions=functions),
        "sqlglot.parse": sqlglot.parse_one,
        "sqlglot.qualify": lambda sql: qualify(sqlglot.parse_one(sql), schema=mapping),
    }


def run_family(name: str, repeat: int, budget: float) -> dict[str, Any]:
    generate, sizes, unit = FAMILIES[name]
    points = []
    for n in sizes:
        sql, schema = generate(n)
        point: dict[str, Any] = {"n": n, "chars": len(sql)}
        calls = {key: (call, None) for key, call in _callables(schema).items()}
        records = measure_many(calls, [(f"{name}-{n}", sql)], repeat=repeat, budget=budget)
        for key, record in records.items():
            point[key] = None if record["failures"] else record["total_s"]
            if record["failures"]:
                point[f"{key}.error"] = next(iter(record["failures"].values()))
        point["answer_sources"] = _answer_size(sql, schema)
        points.append(point)
        _progress(f"{name} n={n}: explain {_ms(point['prism.explain'])}, qualify {_ms(point['sqlglot.qualify'])}")
    largest_sql, largest_schema = generate(sizes[-1])
    return {
        "unit": unit,
        "points": points,
        "slope": {key: _slope(points, key) for key in ("prism.explain", "sqlglot.parse", "sqlglot.qualify")},
        "peak_memory_mb": _peak_memory(largest_sql, largest_schema),
    }


def _answer_size(sql, schema) -> int | None:
    import prism_lineage

    try:
        answer = prism_lineage.explain(sql, schema)
    except Exception:  # noqa: BLE001 - the timing records the failure
        return None
    return sum(len(f.sources) for s in answer.statements for f in s.fields)


def _peak_memory(sql, schema) -> float | None:
    import prism_lineage

    catalog = prism_lineage.Catalog.from_mapping(schema)
    tracemalloc.start()
    try:
        prism_lineage.explain(sql, catalog)
    except Exception:  # noqa: BLE001
        return None
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return peak / 1e6


def _slope(points, key) -> float | None:
    """Least-squares slope of log(time) against log(n) over the upper half of the sizes."""
    usable = [(p["n"], p[key]) for p in points if p.get(key)]
    upper = usable[len(usable) // 2:]
    if len(upper) < 2:
        return None
    xs = [math.log(n) for n, _ in upper]
    ys = [math.log(t) for _, t in upper]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    var = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / var if var else None


def chart(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    families = result["families"]
    columns = 2 if len(families) > 1 else 1
    rows = (len(families) + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(5.2 * columns, 4.2 * rows), squeeze=False)
    styles = {"prism.explain": ("prism explain", "tab:green", "-"),
              "sqlglot.qualify": ("sqlglot parse + qualify", "tab:blue", "--"),
              "sqlglot.parse": ("sqlglot parse", "tab:blue", ":")}
    for ax in axes.flat[len(families):]:
        ax.set_visible(False)
    for ax, (name, family) in zip(axes.flat, families.items()):
        points = family["points"]
        for key, (label, colour, style) in styles.items():
            xs = [p["n"] for p in points if p.get(key)]
            ys = [p[key] for p in points if p.get(key)]
            slope = family["slope"].get(key)
            ax.plot(xs, ys, style, color=colour, marker="o", markersize=3,
                    label=f"{label} (slope {slope:.2f})" if slope is not None else label)
        anchor = next((p for p in reversed(points) if p.get("prism.explain")), None)
        if anchor:
            # References through prism's largest point: a linear cost runs parallel to the
            # first, a quadratic one to the second.
            xs = [p["n"] for p in points]
            for power, style, label in ((1, "-", "linear reference"), (2, ":", "quadratic reference")):
                ref = [anchor["prism.explain"] * (x / anchor["n"]) ** power for x in xs]
                ax.plot(xs, ref, style, color="gray", linewidth=0.8, label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        measured = [p[k] for p in points for k in styles if p.get(k)]
        if measured:  # the references may run far below the data: show the data
            ax.set_ylim(min(measured) / 3, max(measured) * 2)
        ax.set_xlabel(family["unit"])
        ax.set_ylabel("seconds")
        ax.set_title(name, fontsize=10)
        ax.legend(fontsize=7)
    fig.suptitle("explain time against query size (log-log; slope 1 = linear, 2 = quadratic)", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def profile(name: str, top: int = 25) -> str:
    """cProfile of ``explain`` on the largest query of ``name``: top functions, cumulative and own time."""
    import cProfile
    import io
    import pstats

    import prism_lineage

    generate, sizes, _ = FAMILIES[name]
    sql, schema = generate(sizes[-1])
    catalog = prism_lineage.Catalog.from_mapping(schema)
    prism_lineage.explain(sql, catalog)
    profiler = cProfile.Profile()
    profiler.runcall(prism_lineage.explain, sql, catalog)
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


def table(result: dict[str, Any]) -> str:
    lines = []
    for name, family in result["families"].items():
        slope = family["slope"]
        lines.append(f"{name} ({family['unit']}): slope explain {_fmt(slope['prism.explain'])}, "
                     f"qualify {_fmt(slope['sqlglot.qualify'])}, parse {_fmt(slope['sqlglot.parse'])}; "
                     f"peak memory of the largest: {_fmt(family['peak_memory_mb'], 1)} MB")
        lines.append(f"  {'n':>5}  {'explain ms':>11}  {'qualify ms':>11}  {'parse ms':>9}  {'explain/qualify':>15}"
                     f"  {'sources in answer':>17}")
        for p in family["points"]:
            ratio = p["prism.explain"] / p["sqlglot.qualify"] if p["prism.explain"] and p["sqlglot.qualify"] else None
            lines.append(f"  {p['n']:>5}  {_ms(p['prism.explain']):>11}  {_ms(p['sqlglot.qualify']):>11}"
                         f"  {_ms(p['sqlglot.parse']):>9}  {_fmt(ratio):>15}  {str(p['answer_sources']):>17}")
            for key in ("prism.explain", "sqlglot.qualify", "sqlglot.parse"):
                if p.get(f"{key}.error"):
                    lines.append(f"         {key} failed: {p[f'{key}.error']}")
    return "\n".join(lines) + "\n"


def _ms(seconds) -> str:
    return "failed" if seconds is None else f"{seconds * 1000:.2f}"


def _fmt(value, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _progress(message: str) -> None:
    print(f"… {message}", file=sys.stderr, flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.scale", description=__doc__.split("\n\n")[0])
    parser.add_argument("--families", default=",".join(FAMILIES),
                        help=f"comma-separated, of: {', '.join(FAMILIES)}")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs after the warm-up (default 3)")
    parser.add_argument("--budget", type=float, default=20.0, help="seconds of timed runs per figure at most")
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "scale.json")
    parser.add_argument("--chart", type=Path, help="draw the chart (PNG) there")
    parser.add_argument("--profile", metavar="FAMILY", help="only profile explain on FAMILY's largest query")
    parser.add_argument("--governance", default="", metavar="FAMILIES",
                        help="also these governance families, comma-separated ('all': every one; see "
                             "benchmarks/scale_governance.py)")
    parser.add_argument("--scripts", default="", metavar="FAMILIES",
                        help="also these script families, comma-separated ('all': every one; see "
                             "benchmarks/scale_scripts.py)")
    args = parser.parse_args(argv)
    if args.profile:
        if args.profile not in FAMILIES:
            parser.error(f"unknown family {args.profile!r}")
        sys.stdout.write(profile(args.profile))
        return 0
    names = [n.strip() for n in args.families.split(",") if n.strip()]
    unknown = [n for n in names if n not in FAMILIES]
    if unknown:
        parser.error(f"unknown families: {', '.join(unknown)}")
    result = {"repeat": args.repeat, "families": {name: run_family(name, args.repeat, args.budget) for name in names}}
    sys.stdout.write(table(result))
    if args.governance:
        from . import scale_governance

        chosen = list(scale_governance.FAMILIES) if args.governance == "all" else args.governance.split(",")
        result["governance"] = {name: scale_governance.run_family(name, 1) for name in chosen}
        sys.stdout.write(scale_governance.table(result["governance"]))
    if args.scripts:
        from . import scale_scripts

        chosen = list(scale_scripts.FAMILIES) if args.scripts == "all" else args.scripts.split(",")
        result["scripts"] = {name: scale_scripts.run_family(name) for name in chosen}
        sys.stdout.write(scale_scripts.table(result["scripts"]))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    if args.chart:
        chart(result, args.chart)
    return 0


if __name__ == "__main__":
    sys.exit(main())
