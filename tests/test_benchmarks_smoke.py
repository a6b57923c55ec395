"""The benchmarks work (their figures are never asserted: speed is measured in ``benchmarks/``,
not in tests): every adapter imports and answers two queries (tools that are not installed
are skipped), the runner writes its table, JSON and chart, the agreement check finds the
disagreement it should, and the generated scale queries mean what they say."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # ``benchmarks`` is a folder of the repository, not installed
    sys.path.insert(0, str(ROOT))

from benchmarks import agreement, peers, report, run, scale, scale_scripts, timing  # noqa: E402
from benchmarks.adapters import ADAPTERS  # noqa: E402
from benchmarks.workloads import Workload  # noqa: E402

SCHEMA = {"t": {"a": "int", "b": "int", "c": "int"}, "u": {"a": "int", "d": "varchar"}}
QUERIES = (
    ("q1", "SELECT a, SUM(b) AS total FROM t WHERE c > 0 GROUP BY a"),
    ("q2", "SELECT t.a, u.d FROM t JOIN u ON t.a = u.a"),
)


@pytest.mark.parametrize("adapter", ADAPTERS, ids=lambda a: a.TOOL)
def test_adapter_answers_two_queries(adapter) -> None:
    placement = peers.place(adapter)
    if placement.where == "not installed":
        pytest.skip(f"{adapter.TOOL} is not installed (benchmarks/setup_peers.sh installs the peers)")
    if placement.where == "in-process":
        calls = {key: adapter.prepare(key, SCHEMA, None, QUERIES) for key in adapter.MEASURES}
        records = timing.measure_many(calls, QUERIES, repeat=1)
    else:
        workload = Workload("mini", SCHEMA, QUERIES, ROOT)
        records = peers.run_in_venv(placement, list(adapter.MEASURES), [workload], repeat=1, budget=5)["results"]["mini"]
    assert set(records) == set(adapter.MEASURES)
    for record in records.values():
        assert record["failures"] == {}
        assert record["runs"] == 1 and set(record["per_query_s"]) == {"q1", "q2"}
        assert record["total_s"] > 0 and record["worst_query"] in {"q1", "q2"}


def test_timing_keeps_each_querys_least_cpu_time() -> None:
    record = timing.measure(lambda sql: None, QUERIES, repeat=3)
    assert len(record["cpu_passes_s"]) == 3 and len(record["wall_passes_s"]) == 3
    assert 0 <= record["cpu_least_total_s"] <= min(record["cpu_passes_s"]) + 1e-9


def test_timing_records_failures_and_keeps_within_the_budget() -> None:
    def call(sql: str) -> None:
        if "bad" in sql:
            raise ValueError("no good")

    record = timing.measure(call, [("ok", "good"), ("ko", "bad")], repeat=3)
    assert record["runs"] == 3
    assert record["failures"] == {"ko": "ValueError: no good"}
    assert record["worst_query"] == "ok"  # a failed query is never the worst
    assert timing._runs_within_budget(10.0, 5, 60.0) == 5
    assert timing._runs_within_budget(25.0, 5, 60.0) == 2
    assert timing._runs_within_budget(100.0, 5, 60.0) == 1


def test_agreement_lists_what_only_sqlglot_counts_as_value() -> None:
    """sqlglot's lineage counts every column of the select expression, PARTITION BY too;
    prism gives the partition key window lineage, not value lineage."""
    workload = Workload("mini", SCHEMA, (("w", "SELECT a, SUM(b) OVER (PARTITION BY c) AS s FROM t"),), ROOT)
    found = agreement.compare(workload)
    assert found["fields"] == 2 and found["agreed"] == 1
    assert found["disagreements"] == [
        {"query": "w", "field": "s", "prism_only": [], "sqlglot_only": ["t.c"], "prism_kinds": {"t.c": ["window"]}},
    ]


def test_runner_end_to_end(tmp_path, monkeypatch, capsys) -> None:
    for name in ("tpch", "tpcds"):
        folder = tmp_path / "workloads" / name
        folder.mkdir(parents=True)
        (folder / "schema.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
        for query, sql in QUERIES:
            (folder / f"{query}.sql").write_text(sql, encoding="utf-8")
    monkeypatch.setenv("PRISM_WORKLOADS", str(tmp_path / "workloads"))
    out_json, chart = tmp_path / "figures.json", tmp_path / "chart.png"
    code = run.main(["--workload", "tpch", "--only", "prism", "--repeat", "1", "--json", str(out_json),
                     "--chart", str(chart)])
    assert code == 0
    table = capsys.readouterr().out
    assert "TPC-H: 2 queries, 4 output fields" in table
    assert "sqlglot parse_one + qualify (floor)" in table and "prism_lineage explain (every field)" in table
    assert "value lineage = sqlglot's on 4 of 4 fields; 0 differ" in table
    figures = json.loads(out_json.read_text(encoding="utf-8"))
    measures = figures["workloads"]["tpch"]["measures"]
    assert set(measures) == {"sqlglot.qualify", "prism.explain"}
    assert measures["sqlglot.qualify"]["ratio_to_floor"] == 1.0
    assert measures["prism.explain"]["status"] == "measured" and measures["prism.explain"]["ratio_to_floor"] > 0
    assert chart.read_bytes().startswith(b"\x89PNG")


def test_table_says_not_installed() -> None:
    result = {
        "repeat": 1, "floor_label": "floor", "machine": "m", "workloads": {"tpch": {
            "label": "TPC-H", "queries": 2, "fields": 4,
            "measures": {"x.y": {"key": "x.y", "label": "some peer", "status": "not installed"}},
        }},
    }
    assert "  some peer  not installed" in report.table(result)


def test_scale_queries_mean_what_they_say() -> None:
    """Checked by hand against the generated SQL (printed in the docstrings' terms)."""
    import prism_lineage

    def answer(generated):
        sql, schema = generated
        return {f.name: [(s.column, s.relationship) for s in f.sources]
                for f in prism_lineage.explain(sql, schema).statements[0].fields}

    # WITH c0 AS (SELECT k, v FROM base WHERE k > 0), c1 AS (SELECT k, v + 1 AS v FROM c0 WHERE k > 1) …
    assert answer(scale.cte_chain(3)) == {
        "k": [("base.k", "value"), ("base.k", "control")],
        "v": [("base.v", "value"), ("base.k", "control")],
    }
    # SELECT t0.v0, t2.v2 FROM t0 JOIN t1 ON t1.k = t0.k JOIN t2 ON t2.k = t1.k
    joined = [("t0.k", "join"), ("t1.k", "join"), ("t2.k", "join")]
    assert answer(scale.joins(3)) == {"v0": [("t0.v0", "value")] + joined, "v2": [("t2.v2", "value")] + joined}
    assert len(answer(scale.joins_all_fields(4))) == 4
    # SELECT c0, c1 * 2 + c0 AS d1, c2 FROM wide_table WHERE c0 > 0
    assert answer(scale.wide(3))["d1"] == [
        ("wide_table.c0", "value"), ("wide_table.c1", "value"), ("wide_table.c0", "control"),
    ]


def test_scale_scripts_mean_what_they_say() -> None:
    """The script families (``explain --through-script``): the last query answers from the base
    table through every table of the chain; a point runs in its own process."""
    import prism_lineage

    # CREATE TABLE t0 AS SELECT k, v, d FROM base WHERE k > 0; CREATE TABLE t1 AS SELECT k, v + 1
    # AS v, d FROM t0 WHERE k > 1; …; SELECT k, v, d FROM t2
    last = prism_lineage.explain(scale_scripts.ctas_chain(3), scale_scripts.SCHEMA, through_script=True).statements[-1]
    assert {f.name: [(s.column, s.relationship, s.transformation) for s in f.sources] for f in last.fields} == {
        "k": [("base.k", "value", "identity"), ("base.k", "control", "filter")],
        "v": [("base.v", "value", "expression"), ("base.k", "control", "filter")],
        "d": [("base.d", "value", "identity"), ("base.k", "control", "filter")],
    }
    # 16 CREATE TABLE AS, an INSERT after t11, an UPDATE after t13, the query.
    mixed = prism_lineage.explain(scale_scripts.ctas_mixed(16), scale_scripts.SCHEMA, through_script=True)
    assert [s.kind for s in mixed.statements].count("create_table") == 16
    assert [s.kind for s in mixed.statements][-7:] == ["insert", "create_table", "create_table", "update",
                                                        "create_table", "create_table", "select"]
    assert mixed.statements[-1].reads == ["base"]
    # CREATE VIEW v0 AS SELECT k, v, d FROM base WHERE k > 0; CREATE VIEW v1 AS … FROM v0 WHERE k > 1;
    # …; SELECT k, v, d FROM v3: the same answer through views as through tables.
    views = prism_lineage.explain(scale_scripts.view_chain(4), scale_scripts.SCHEMA, through_script=True)
    assert [s.kind for s in views.statements] == ["create_view"] * 4 + ["select"]
    assert {f.name: [(s.column, s.relationship, s.transformation) for s in f.sources]
            for f in views.statements[-1].fields} == {
        "k": [("base.k", "value", "identity"), ("base.k", "control", "filter")],
        "v": [("base.v", "value", "expression"), ("base.k", "control", "filter")],
        "d": [("base.d", "value", "identity"), ("base.k", "control", "filter")],
    }
    point = scale_scripts.run_point(scale_scripts.ctas_chain(5), timeout=120, code=None)
    assert point["statements"] == 6 and point["error"] is None and point["cpu_s"] > 0


def test_explain_tpcds_reports_cpu_and_load_and_profiles_the_worker(tmp_path: Path) -> None:
    from benchmarks import explain_tpcds

    workload = Workload("mini", SCHEMA, QUERIES, ROOT)
    text, figures = explain_tpcds.timings(workload, 1)
    assert "CPU: explain" in text and "load average" in text
    assert figures["explain"]["cpu_total_s"] > 0 and figures["floor"]["cpu_total_s"] > 0
    assert set(figures) >= {"ratio_wall", "ratio_cpu", "load_average_before", "load_average_after", "commit"}
    json.dumps(figures)  # what --json writes
    # explain works on the deep-stack worker thread: the profile must be taken there, or it
    # shows only the caller waiting.
    assert "lower_select" in explain_tpcds.profile(workload, 200)


def test_explain_tpcds_across_processes_reports_each_seed_and_the_median(tmp_path: Path) -> None:
    """--processes: one fresh process per PYTHONHASHSEED, the tool measured first alternating;
    each process's ratio, then the median and the range."""
    from benchmarks import explain_tpcds

    folder = tmp_path / "workloads" / "tpch"
    folder.mkdir(parents=True)
    (folder / "schema.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    for query, sql in QUERIES:
        (folder / f"{query}.sql").write_text(sql, encoding="utf-8")
    (tmp_path / "workloads" / "tpcds").mkdir()
    (tmp_path / "workloads" / "tpcds" / "schema.json").write_text("{}", encoding="utf-8")
    out = tmp_path / "figures.json"
    import os
    import subprocess
    done = subprocess.run([sys.executable, "-m", "benchmarks.explain_tpcds", "--workload", "tpch", "--repeat", "1",
                           "--seeds", "7,8", "--json", str(out)], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, PRISM_WORKLOADS=str(tmp_path / "workloads")), check=False)
    assert done.returncode == 0, done.stderr
    figures = json.loads(out.read_text(encoding="utf-8"))
    assert figures["processes"] == 2 and figures["queries"] == 2
    assert [run["hash_seed"] for run in figures["runs"]] == ["7", "8"]
    assert [run["first"] for run in figures["runs"]] == ["explain", "floor"]
    ratios = sorted(run["ratio_cpu"] for run in figures["runs"])
    assert figures["ratio_cpu_min"] == ratios[0] and figures["ratio_cpu_max"] == ratios[1]
    assert figures["ratio_cpu_median"] == sum(ratios) / 2
    for run in figures["runs"]:
        assert len(run["explain"]["cpu_passes_s"]) == 1 and run["floor"]["cpu_total_s"] > 0
        # One pass: each query's least CPU time is its only one.
        assert run["explain"]["cpu_least_total_s"] == pytest.approx(run["explain"]["cpu_passes_s"][0])
        assert run["ratio_cpu_least"] == pytest.approx(run["explain"]["cpu_least_total_s"]
                                                       / run["floor"]["cpu_least_total_s"])
    assert figures["ratio_cpu_least_min"] <= figures["ratio_cpu_least_median"] <= figures["ratio_cpu_least_max"]
    assert "ratio (CPU): median" in done.stdout and "load average" in done.stdout
    bad = subprocess.run([sys.executable, "-m", "benchmarks.explain_tpcds", "--seeds", "1,x"], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "--seeds takes whole numbers" in bad.stderr
