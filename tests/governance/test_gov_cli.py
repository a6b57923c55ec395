"""``prism-lineage lineage`` and ``review`` end to end: answers, refusals and exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
import yaml

from gov_helpers import DBT, ROOT, SHOP, git_commit
from prism_lineage.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_explorer_text_prints_direction_depth_marks_and_evidence(capsys):
    code, out, err = run(capsys, "lineage", "analytics.daily_revenue", "--project", str(SHOP), "--depth", "1")
    assert code == 0 and err == ""
    assert "direction both, depth 1 (as applied)" in out
    # Marks in words (a terminal draws no line), edges grouped per pair with one entry per mark,
    # a parsed edge's columns as a small table, value lineage first, then the indirect kinds once
    # per source column (issue 10 item 9).
    assert "marks: declared Recorded; parsed Recorded; observed Not recorded" in out
    assert "solid" not in out and "dashed" not in out and "holds" not in out
    assert "3 assets shown" in out
    assert ("  analytics.orders -> analytics.daily_revenue\n"
            "    declared  by the view's declaration in views/daily_revenue.yaml\n"
            "        Listed by the view's author; nothing checks it against the view's SQL.\n"
            "    parsed    by the view's SQL in views/daily_revenue.yaml\n"
            "        column      from        transformation  confidence\n"
            "        order_date  order_date  identity        exact\n"
            "        revenue     amount      aggregate       exact\n"
            "        groups by: order_date\n") in out


def test_explorer_json_is_the_answer_shape(capsys):
    code, out, _ = run(capsys, "lineage", "orders", "--project", str(SHOP), "--as", "carol", "-o", "json",
                       "--direction", "up")
    document = json.loads(out)
    assert code == 0 and document["asset"] == "analytics.orders" and document["direction"] == "upstream"
    assert document["depth"] == 2 and document["environment"] == "prod"


def test_impact_sub_subcommand(capsys):
    code, out, _ = run(capsys, "lineage", "impact", "analytics.orders", "--project", str(SHOP), "-o", "json")
    document = json.loads(out)
    assert code == 0 and document["count"] == 3 and document["at_least"] is True  # two assets' SQL not read
    code, out, _ = run(capsys, "lineage", "impact", "analytics.orders", "--project", str(SHOP), "--as", "carol")
    assert code == 0 and "at least 2 assets downstream" in out


def test_an_asset_called_impact_is_still_explored(capsys, tmp_path):
    code, _, err = run(capsys, "lineage", "impact", "--project", str(SHOP))
    assert code == 5 and "no table or view 'impact'" in err


@pytest.mark.parametrize("argv, code, message, error_code", [
    (["--depth", "0"], 2, "depth 0 is outside the allowed range 1 to 10", "depth_out_of_range"),
    (["--depth", "11"], 2, "depth 11 is outside the allowed range 1 to 10", "depth_out_of_range"),
    (["--as", "bob-deploy"], 7, "credential 'bob-deploy' lacks the permission lineage.read", "permission_refused"),
    (["--as", "mallory"], 7, "credential 'mallory' is not known to this project", "unknown_credential"),
    (["--env", "staging"], 2, "project 'shop' has no environment 'staging'",
     "unknown_environment"),
])
def test_refusals_name_what_is_refused(capsys, argv, code, message, error_code):
    got, out, err = run(capsys, "lineage", "analytics.orders", "--project", str(SHOP), "-o", "json", *argv)
    assert got == code
    assert err == f"prism-lineage: error: {message}\n"
    assert json.loads(out) == {"error": {"code": error_code, "message": message}}


def test_hidden_nonexistent_and_other_environment_are_byte_identical(capsys):
    outputs = set()
    for name, credential in (("sandbox.experiments", "dave"), ("sandbox.experiments", None)):
        for output in ("json", "text"):
            argv = ["lineage", name, "--project", str(SHOP), "-o", output]
            if credential:
                argv += ["--as", credential]
            outputs.add((output, run(capsys, *argv)))
    # dave may not see sandbox.*; the owner's prod has no sandbox.experiments (it is dev's).
    assert len(outputs) == 2
    missing = {(o, run(capsys, "lineage", "sandbox.experiments", "--project", str(SHOP), "--as", "dave", "-o", o))
               for o in ("json", "text")}
    assert missing == outputs
    hidden = {(o, run(capsys, "lineage", "finance.board_report", "--project", str(SHOP), "--as", "dave", "-o", o))
              for o in ("json", "text")}
    absent = {(o, run(capsys, "lineage", "finance.board_report", "--project", str(SHOP), "--as", "dave", "-o", o,
                      "--env", "dev")) for o in ("json", "text")}
    assert {(o, (c, out.replace("dev", "prod"), err.replace("dev", "prod"))) for o, (c, out, err) in absent} == hidden


def test_unreadable_project_exit_code_3(capsys, tmp_path):
    code, _, err = run(capsys, "lineage", "x", "--project", str(tmp_path))
    assert code == 3 and "is neither a native project" in err
    (tmp_path / "project.yaml").write_text("name: [x\n")
    code, _, err = run(capsys, "lineage", "x", "--project", str(tmp_path))
    assert code == 3 and err.startswith("prism-lineage: error: project.yaml is not valid YAML at line")


def test_bad_declaration_names_file_and_field(capsys, tmp_path):
    shutil.copytree(SHOP, tmp_path / "p")
    (tmp_path / "p/pipelines/bad.yaml").write_text(yaml.safe_dump(
        {"name": "bad", "assets": [{"name": "a", "writes": "x.y", "sql": "SELECT 1", "sql_file": "f.sql"}]}))
    code, _, err = run(capsys, "lineage", "x", "--project", str(tmp_path / "p"))
    assert code == 3 and err == ("prism-lineage: error: pipelines/bad.yaml, line 2: assets.0: asset 'a' needs "
                                 "exactly one of 'sql' and 'sql_file'\n")


def test_dbt_project_directory(capsys):
    code, out, _ = run(capsys, "lineage", "main.orders", "--project", str(DBT), "-o", "json", "--depth", "1")
    document = json.loads(out)
    assert code == 0 and document["environment"] == "dev"
    assert {e["file"] for e in document["edges"]} == {"models/marts/orders.sql", "models/marts/customers.sql"}


def test_text_says_not_reported_when_an_answer_has_no_marks():
    from prism_lineage.governance.text import render_marks

    assert render_marks({}) == "marks: not reported"


def test_review_exit_codes(capsys, tmp_path):
    base, proposed = tmp_path / "base", tmp_path / "proposed"
    shutil.copytree(SHOP, base)
    shutil.copytree(SHOP, proposed)
    code, out, _ = run(capsys, "review", "--base", str(base), "--project", str(proposed), "--exit-code")
    assert code == 0 and "nothing waits for approval" in out
    path = proposed / "tables/analytics_orders.yaml"
    document = yaml.safe_load(path.read_text())
    document["columns"].pop()
    path.write_text(yaml.safe_dump(document))
    code, out, _ = run(capsys, "review", "--base", str(base), "--project", str(proposed))
    assert code == 0 and "removes 1 column (amount) of a certified table" in out and "3 assets downstream" in out
    code, _, _ = run(capsys, "review", "--base", str(base), "--project", str(proposed), "--exit-code")
    assert code == 9


def test_review_against_a_git_revision(capsys, tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(SHOP, repo / "shop")
    git_commit(repo)
    (repo / "shop/tables/analytics_orders.yaml").unlink()
    code, out, _ = run(capsys, "review", "--base-rev", "HEAD", "--project", str(repo / "shop"), "-o", "json")
    assert code == 0 and json.loads(out)["held"][0]["reason"] == "deletes the file of a certified table"
    code, _, err = run(capsys, "review", "--base-rev", "no-such-rev", "--project", str(repo / "shop"))
    assert code == 3 and "'no-such-rev' is not a commit of the repository" in err


def test_the_installed_command_runs():
    program = "import sys; from prism_lineage.cli import main; sys.exit(main())"
    done = subprocess.run([sys.executable, "-c", program, "lineage", "impact", "raw.orders",
                           "--project", str(SHOP)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0 and "5 assets downstream" in done.stdout


def test_no_asset_asks_to_choose_and_searches_visible_names_only(capsys):
    code, out, _ = run(capsys, "lineage", "--project", str(SHOP), "--search", "orders", "--as", "carol")
    assert code == 0
    assert out == ("choose an asset of shop/prod: prism-lineage lineage ASSET --project " + str(SHOP) + "\n"
                   "  analytics.orders  table\n")
    code, out, _ = run(capsys, "lineage", "--project", str(SHOP), "--as", "dave", "-o", "json")
    assert json.loads(out)["choose"] == [{"name": "marts.revenue_by_country", "kind": "view"}]
    code, _, err = run(capsys, "lineage", "--project", str(SHOP), "--as", "bob-deploy")
    assert code == 7 and "lineage.read" in err


def test_index_records_each_sync_and_answers_from_it(capsys, tmp_path):
    argv = ("lineage", "impact", "analytics.orders", "--project", str(SHOP), "-o", "json")
    _, direct, _ = run(capsys, *argv)
    code, indexed, err = run(capsys, *argv, "--index", str(tmp_path), "--sync")
    assert code == 0 and err.startswith("prism-lineage: synced shop/prod")
    answer = json.loads(indexed)
    assert answer.pop("as_of")["epoch"] == 1  # the store says which sync it answers as of
    assert answer == json.loads(direct)  # the index holds the same rollup
    environment = tmp_path / "shop" / "prod"
    assert sorted(p.name for p in (environment / "alive").glob("*.parquet")) == ["v1_1.parquet"]
    run(capsys, *argv, "--index", str(tmp_path), "--sync")  # a second sync: the next epoch
    assert sorted(p.name for p in (environment / "alive").glob("*.parquet")) == ["v1_1.parquet", "v1_2.parquet"]
