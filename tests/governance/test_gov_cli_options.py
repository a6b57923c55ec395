"""The command line's shared spellings (issue 10 items 12, 13).

* ``-o/--output`` and ``-f/--format`` are one option in every command that prints an answer:
  ``explain -o json`` and ``lineage -f json`` work, and a failure with either spelling of
  ``json`` prints the ``{"error": …}`` object;
* ``--base-rev`` on a project outside a git work tree is a refusal saying so (exit 3), never an
  internal error.
"""

from __future__ import annotations

import json
import shutil

import pytest

from gov_helpers import SHOP
from prism_lineage.cli import build_parser, main

SPELLINGS = [["-o", "json"], ["--output", "json"], ["-f", "json"], ["--format", "json"], ["--output=json"],
             ["--format=json"], ["-ojson"], ["-fjson"]]


@pytest.mark.parametrize("command", ["explain", "graph", "lineage", "review", "sync", "observe", "index"])
def test_every_command_that_prints_an_answer_takes_both_spellings(command):
    parser = build_parser(command)
    [commands] = [a for a in parser._actions if a.dest == "command"]
    options = {o for action in commands.choices[command]._actions for o in action.option_strings}
    assert {"-o", "--output", "-f", "--format"} <= options


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_explain_answers_json_with_either_spelling(tmp_path, capsys, spelling):
    query = tmp_path / "q.sql"
    query.write_text("SELECT a AS b FROM t")
    assert main(["explain", str(query), *spelling]) == 0
    assert json.loads(capsys.readouterr().out)["statements"][0]["fields"][0]["name"] == "b"


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_lineage_answers_json_with_either_spelling(capsys, spelling):
    assert main(["lineage", "analytics.orders", "--project", str(SHOP), *spelling]) == 0
    assert json.loads(capsys.readouterr().out)["asset"] == "analytics.orders"


@pytest.mark.parametrize("spelling", [["-f", "json"], ["--format=json"], ["-o", "json"]])
def test_a_failure_prints_the_error_object_with_either_spelling(capsys, spelling):
    assert main(["lineage", "no.such", "--project", str(SHOP), *spelling]) == 5
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "asset_not_found"


@pytest.mark.parametrize("command", [["lineage", "analytics.orders"], ["review"]])
def test_base_rev_outside_a_git_work_tree_is_refused_saying_so(tmp_path, capsys, command):
    project = shutil.copytree(SHOP, tmp_path / "shop")  # /tmp: no repository above it
    code = main([*command, "--project", str(project), "--base-rev", "HEAD"])
    err = capsys.readouterr().err
    assert code == 3, err
    assert err.startswith(f"prism-lineage: error: {project} is not in a git work tree, so --base-rev 'HEAD' "
                          "cannot be read (give the base as a directory: --base DIR)")
    assert "not a git repository" in err and len(err.splitlines()) == 1
