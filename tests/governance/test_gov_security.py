"""Hostile and unlucky use of the governance CLI (issue 15): access read from the wrong revision,
approvals without the permission, refused credentials doing work, option-shaped values reaching
git, paths escaping the project or the index, files that are not regular files, nesting without
bound, unreadable proposed versions, control characters, and what is accepted silently."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from gov_helpers import SHOP, edit_yaml, git_commit
from prism_lineage.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def repo(tmp_path) -> Path:
    """The shop project committed in a git repository (the working tree is what a branch brings)."""
    root = tmp_path / "repo"
    shutil.copytree(SHOP, root / "shop")
    git_commit(root)
    return root / "shop"


# --- item 5: who may see what comes from the base --------------------------------------------------


def test_a_branch_cannot_widen_its_authors_access(capsys, repo):
    edit_yaml(repo, "access.yaml", lambda d: d["roles"]["viewer"].update(sees=["*"]))  # dave: marts.* → *
    for argv in (("lineage", "analytics.orders"), ("lineage", "impact", "analytics.orders")):
        code, _, err = run(capsys, *argv, "--project", str(repo), "--base-rev", "HEAD", "--as", "dave")
        assert code == 5 and "no table or view 'analytics.orders' that you may see" in err
    code, out, _ = run(capsys, "lineage", "--project", str(repo), "--base-rev", "HEAD", "--as", "dave", "-o", "json")
    assert code == 0 and [a["name"] for a in json.loads(out)["choose"]] == ["marts.revenue_by_country"]
    code, out, _ = run(capsys, "review", "--project", str(repo), "--base-rev", "HEAD", "--as", "dave", "-o", "json")
    assert code == 0


# --- item 6: authorization, before any work ---------------------------------------------------------


def test_approving_needs_review_approve_and_names_it(capsys, repo, tmp_path):
    index = tmp_path / "index"
    code, out, err = run(capsys, "lineage", "analytics.orders", "--project", str(repo), "--base-rev", "HEAD",
                         "--approved", "--as", "bob", "--index", str(index), "--sync", "-o", "json")
    assert code == 7 and err == "prism-lineage: error: credential 'bob' lacks the permission review.approve\n"
    assert json.loads(out)["error"]["code"] == "permission_refused"
    assert not index.exists()  # refused before any work: nothing synced, nothing written
    code, _, _ = run(capsys, "lineage", "analytics.orders", "--project", str(repo), "--base-rev", "HEAD",
                     "--approved", "--as", "alice", "--index", str(index), "--sync")
    assert code == 0 and index.exists()  # alice's admin role holds review.approve
    code, _, _ = run(capsys, "lineage", "analytics.orders", "--project", str(repo), "--base-rev", "HEAD",
                     "--approved")
    assert code == 0  # the owner holds every permission


def test_a_refused_credential_writes_no_epoch_and_learns_no_environment(capsys, tmp_path):
    index = tmp_path / "index"
    for env in (None, "staging", "dev"):
        argv = ["lineage", "analytics.orders", "--project", str(SHOP), "--as", "bob-deploy", "--index", str(index),
                "--sync"]
        code, _, err = run(capsys, *argv, *(["--env", env] if env else []))
        assert code == 7 and err == "prism-lineage: error: credential 'bob-deploy' lacks the permission lineage.read\n"
    assert not index.exists()
    code, _, err = run(capsys, "lineage", "analytics.orders", "--project", str(SHOP), "--env", "staging")
    assert code == 2 and "dev" not in err and "prod" not in err


# --- item 10: a revision is never an option -------------------------------------------------------


@pytest.mark.parametrize("revision", ["--output=VICTIM", "-oVICTIM", "--remote=/nonexistent", "--exec=touch VICTIM",
                                      "HEAD --output=VICTIM", "--", "-"])
def test_an_option_shaped_revision_is_a_revision_that_does_not_exist(capsys, repo, tmp_path, revision):
    victim = tmp_path / "victim"
    victim.write_text("keep")
    value = revision.replace("VICTIM", str(victim))
    for command in (("lineage", "analytics.orders"), ("review",)):
        code, _, err = run(capsys, *command, "--project", str(repo), f"--base-rev={value}")
        assert code == 3 and "is not a commit of the repository" in err
    assert victim.read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["repo", "victim"]


def test_a_revision_naming_a_tree_or_blob_is_not_a_commit(capsys, repo):
    code, _, err = run(capsys, "review", "--project", str(repo), "--base-rev", "HEAD:shop")
    assert code == 3 and "'HEAD:shop' is not a commit" in err


# --- item 17: control characters are never printed raw ----------------------------------------------


def test_control_characters_in_names_owners_and_files_are_escaped(capsys, tmp_path):
    root = shutil.copytree(SHOP, tmp_path / "shop")
    edit_yaml(root, "tables/analytics_orders.yaml", lambda d: d.update(owner="\x1b]0;owned\x07evil\x1b[2J",
                                                                       steward="a\nforged line"))
    for argv in (("lineage", "analytics.orders"), ("lineage", "impact", "raw.orders")):
        code, out, _ = run(capsys, *argv, "--project", str(root))
        assert code == 0 and "\x1b" not in out and "\x07" not in out
        if argv[1] != "impact":
            assert "owner \\x1b]0;owned\\x07evil\\x1b[2J" in out and "steward a\\nforged line" in out
    code, out, _ = run(capsys, "lineage", "analytics.orders", "--project", str(root), "-o", "json")
    assert json.loads(out)["assets"][0]["owner"] == "\x1b]0;owned\x07evil\x1b[2J"  # JSON says it as it is


def test_an_error_line_echoing_input_is_escaped(capsys):
    code, _, err = run(capsys, "lineage", "analytics.orders\x1b[2J", "--project", str(SHOP))
    assert code == 5 and "\x1b" not in err and "\\x1b[2J" in err and err.count("\n") == 1
