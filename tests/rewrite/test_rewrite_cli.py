"""``prism-lineage graph --rewritten``: the rewritten plan with each target's authored origin."""

from __future__ import annotations

import json

from prism_lineage.cli import main

SQL = """SELECT s.c
FROM (SELECT a + 1 AS c, b FROM t) AS s
WHERE s.c > 2 AND EXISTS (SELECT 1 FROM u WHERE u.k = s.b)
"""
SCHEMA = {"t": {"a": "int", "b": "int"}, "u": {"k": "int"}}


def run(capsys, tmp_path, monkeypatch, *argv: str) -> tuple[int, str, str]:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.sql").write_text(SQL, encoding="utf-8")
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    code = main(["graph", "q.sql", "--schema", "schema.json", "--rewritten", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_text_shows_the_rewritten_plan_and_what_each_new_target_stands_for(capsys, tmp_path, monkeypatch) -> None:
    code, out, err = run(capsys, tmp_path, monkeypatch)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[1] == "rewrites: decorrelate_subqueries, push_filters_into_joins, push_filters_through_projections"
    # Positions checked by hand against SQL: the subquery expression is placed at its first
    # select item (3:34), the WHERE filter spans its conjuncts (3:9, the column c of s.c, to 3:34).
    assert "    Join(semi) [s0.subquery@3:34/semi] @ q.sql:3:34" in lines
    [provenance] = [line for line in lines if line.startswith("  Join(semi) [s0.subquery@3:34/semi] ←")]
    # The semi join stands for the WHERE filter, the EXISTS expression, the subquery's
    # SELECT and its WHERE, each named with where it was written.
    assert provenance.endswith(
        "← Filter [s0.filter@3:9] @ q.sql:3:9-3:34; Subquery(exists) [s0.subquery@3:34] @ q.sql:3:34; "
        "Project [s0.project@3:34] @ q.sql:3:34; Filter [s0.filter@3:51] @ q.sql:3:51-3:57"
    )
    # The rest of the WHERE (s.c > 2) was pushed below the derived table's projection, keeping
    # its authored id and origin; the semi join's condition gives control lineage.
    assert "        Filter [s0.filter@3:9] @ q.sql:3:9-3:34" in lines
    assert any("control/filter/exact  rule=join" in line for line in lines)


def test_json_lists_the_authored_targets_of_every_target(capsys, tmp_path, monkeypatch) -> None:
    code, out, _ = run(capsys, tmp_path, monkeypatch, "--format", "json")
    assert code == 0
    [statement] = json.loads(out)["statements"]
    assert statement["rewrites"][0] == "decorrelate_subqueries"
    targets = {t["id"]: t for t in statement["targets"]}
    semi = targets["s0.subquery@3:34/semi"]
    assert [a["id"] for a in semi["authored"]] == ["s0.filter@3:9", "s0.subquery@3:34", "s0.project@3:34",
                                                   "s0.filter@3:51"]
    assert semi["authored"][3]["origin"] == {"line": 3, "column": 51, "end_line": 3, "end_column": 57,
                                             "statement": 0, "file": "q.sql"}
    for target in statement["targets"]:
        if target["kind"] in ("relation", "field", "expression"):
            assert target["authored"], target["id"]


def test_dot_renders_the_rewritten_graph(capsys, tmp_path, monkeypatch) -> None:
    code, out, _ = run(capsys, tmp_path, monkeypatch, "--format", "dot")
    assert code == 0 and out.startswith("digraph lineage {") and "s0.subquery@3:34/semi" in out


def test_errors_stay_one_line(capsys, tmp_path) -> None:
    code = main(["graph", str(tmp_path / "missing.sql"), "--rewritten"])
    _, err = capsys.readouterr()
    assert code == 3 and len(err.splitlines()) == 1
