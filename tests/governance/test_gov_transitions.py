"""Environment-level review: an environment that reviews holds what a branch brings until a
person approves its move (not computed meanwhile, never drawn empty); one that does not review
projects it without an approval.  The ``reviews`` setting, the transition rules, and the CLI
(``lineage --base/--base-rev [--approved]``, ``review``)."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml

from gov_helpers import SHOP, git_commit, table, view, write_project
from prism_lineage.cli import main
from prism_lineage.governance.access import OWNER
from prism_lineage.governance.errors import AssetNotFoundError, ProjectError, UnknownEnvironmentError
from prism_lineage.governance.explorer import explore
from prism_lineage.governance.impact import impact
from prism_lineage.governance.loading import load_project
from prism_lineage.governance.review import review
from prism_lineage.governance.statuses import HELD_NOTE, NOT_COMPUTED_NOTE, EnvironmentStatus
from prism_lineage.governance.transitions import held_environments, sync_transition, transition

BIG_ORDERS = {"namespace": "analytics", "name": "big_orders", "owner": "finance@shop.example",
              "reads": ["analytics.orders"], "sql": "SELECT order_id, amount FROM analytics.orders WHERE amount > 100"}


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def versions(tmp_path):
    """The shop (prod reviews, dev does not) and a branch that adds a view of analytics.orders."""
    base, proposed = tmp_path / "base", tmp_path / "proposed"
    shutil.copytree(SHOP, base)
    shutil.copytree(SHOP, proposed)
    (proposed / "views/big_orders.yaml").write_text(yaml.safe_dump(BIG_ORDERS, sort_keys=False))
    return base, proposed


def projects(base, proposed):
    return load_project(base)[0], load_project(proposed)[0]


def set_environments(root, environments):
    path = root / "project.yaml"
    settings = yaml.safe_load(path.read_text())
    settings["environments"] = environments
    path.write_text(yaml.safe_dump(settings, sort_keys=False))


# --- the setting --------------------------------------------------------------------------------

def test_the_shop_reviews_prod_and_not_dev():
    project, _ = load_project(SHOP)
    assert {e.name: e.reviews for e in project.environments} == {"dev": False, "prod": True}


def test_a_list_of_names_reviews_nothing(tmp_path):
    project, _ = load_project(write_project(tmp_path, environments=["dev", "prod"], default="prod"))
    assert [e.reviews for e in project.environments] == [False, False]


@pytest.mark.parametrize("environments, pointed, message", [
    ({"prod": {"reviews": "yes"}}, "reviews:", "environments.prod.reviews must be true or false"),
    ({"prod": {"review": True}}, "review:", "environments.prod: unknown setting 'review' (known: reviews)"),
    ({"prod": ["reviews"]}, "prod:", "environments.prod must be a mapping of its settings"),
    ({}, "environments:", "'environments' must list at least one environment name"),
])
def test_bad_settings_are_refused_naming_the_field(tmp_path, environments, pointed, message):
    root = write_project(tmp_path)
    set_environments(root, environments)
    with pytest.raises(ProjectError) as raised:
        load_project(root)
    # The file, the line of the key (issue 10 item 4) and the key.
    line = next(i for i, text in enumerate((root / "project.yaml").read_text().splitlines(), 1)
                if text.strip().startswith(pointed))
    assert str(raised.value) == f"project.yaml, line {line}: {message}"


# --- the transition rules -------------------------------------------------------------------------

def test_an_environment_that_reviews_holds_what_the_branch_brings(versions):
    base, proposed = projects(*versions)
    move = transition(base, proposed, "prod")
    assert (move.reviews, move.changed, move.held) == (True, True, True)
    assert not transition(base, proposed, "prod", approved=True).held


def test_an_environment_that_does_not_review_projects_it_without_an_approval(versions):
    base, proposed = projects(*versions)
    move = transition(base, proposed, "dev")
    assert (move.reviews, move.changed, move.held) == (False, True, False)
    lineage = sync_transition(base, proposed, "dev")
    assert lineage.status is EnvironmentStatus.COMPUTED and "analytics.big_orders" in lineage.by_name


def test_nothing_brought_nothing_held(tmp_path):
    base = load_project(SHOP)[0]
    assert not transition(base, base, "prod").held and held_environments(base, base) == []


def test_a_change_to_another_environment_brings_this_one_nothing(versions):
    base_dir, proposed_dir = versions
    (proposed_dir / "views/big_orders.yaml").write_text(yaml.safe_dump({**BIG_ORDERS, "environments": ["dev"]}))
    base, proposed = projects(base_dir, proposed_dir)
    assert not transition(base, proposed, "prod").changed
    assert held_environments(base, proposed) == []


def test_who_may_see_what_is_not_a_change_to_an_environment(versions):
    base_dir, proposed_dir = versions
    (proposed_dir / "views/big_orders.yaml").unlink()
    (proposed_dir / "access.yaml").write_text((proposed_dir / "access.yaml").read_text().replace("bob:", "bobby:")
                                              .replace("made_by: bob", "made_by: bobby"))
    assert held_environments(*projects(base_dir, proposed_dir)) == []


def test_a_branch_can_neither_lift_its_own_review_nor_slip_in_as_it_turns_review_on(versions):
    base_dir, proposed_dir = versions
    set_environments(proposed_dir, {"dev": {}, "prod": {"reviews": False}})
    assert transition(*projects(base_dir, proposed_dir), "prod").held  # the base reviews
    set_environments(base_dir, {"dev": {}, "prod": {}})
    set_environments(proposed_dir, {"dev": {}, "prod": {"reviews": True}})
    assert transition(*projects(base_dir, proposed_dir), "prod").held  # the branch reviews


def test_held_lineage_is_not_computed_and_named_as_the_environment_stands(versions):
    base, proposed = projects(*versions)
    lineage = sync_transition(base, proposed, "prod")
    assert lineage.status is EnvironmentStatus.NOT_COMPUTED and lineage.held_for_review and lineage.edges == ()
    answer = explore(lineage, OWNER, "analytics.orders")
    assert answer.notes == [NOT_COMPUTED_NOTE, HELD_NOTE] and answer.assets == [] and answer.holds == 0
    assert impact(lineage, OWNER, "analytics.orders").notes == [NOT_COMPUTED_NOTE, HELD_NOTE]
    with pytest.raises(AssetNotFoundError):  # the view the branch adds has not landed
        explore(lineage, OWNER, "analytics.big_orders")
    approved = sync_transition(base, proposed, "prod", approved=True)
    assert approved.status is EnvironmentStatus.COMPUTED
    assert "analytics.big_orders" in {a.name for a in impact(approved, OWNER, "analytics.orders").assets}


def test_an_environment_the_branch_removes(versions):
    base_dir, proposed_dir = versions
    set_environments(proposed_dir, {"prod": {"reviews": True}})
    (proposed_dir / "environments/dev.yaml").unlink()
    (proposed_dir / "tables/sandbox_experiments.yaml").unlink()
    base, proposed = projects(base_dir, proposed_dir)
    with pytest.raises(UnknownEnvironmentError):  # dev does not review: its removal is projected
        sync_transition(base, proposed, "dev")
    set_environments(base_dir, {"dev": {"reviews": True}, "prod": {"reviews": True}})
    base, proposed = projects(base_dir, proposed_dir)
    held = sync_transition(base, proposed, "dev")  # dev reviews: its removal waits like any change
    assert held.held_for_review and "sandbox.experiments" in held.by_name


# --- the command line -----------------------------------------------------------------------------

def test_cli_a_held_environment_says_not_computed_in_words(capsys, versions):
    base, proposed = versions
    argv = ("lineage", "analytics.orders", "--project", str(proposed), "--base", str(base))
    code, out, err = run(capsys, *argv)
    assert code == 0 and err == ""
    assert out == ("lineage of analytics.orders in shop/prod (not computed)\n"
                   "direction both, depth 2 (as applied)\n"
                   "marks: declared Recorded; parsed Recorded; observed Not recorded\n\n"
                   f"{NOT_COMPUTED_NOTE}\n{HELD_NOTE}\n")
    code, out, _ = run(capsys, *argv, "-o", "json")
    document = json.loads(out)
    assert (document["environment_status"], document["assets"], document["edges"]) == ("not computed", [], [])
    code, out, _ = run(capsys, "lineage", "impact", *argv[1:], "-o", "json")
    assert json.loads(out)["environment_status"] == "not computed" and json.loads(out)["count"] == 0


def test_cli_approved_and_unreviewed_environments_are_computed(capsys, versions):
    base, proposed = versions
    argv = ("lineage", "impact", "analytics.orders", "--project", str(proposed), "--base", str(base), "-o", "json")
    for extra in (("--approved",), ("--env", "dev")):
        code, out, _ = run(capsys, *argv, *extra)
        document = json.loads(out)
        assert code == 0 and document["environment_status"] == "computed"
        assert "analytics.big_orders" in [a["name"] for a in document["assets"]]


def test_cli_approved_needs_a_base(capsys):
    code, out, err = run(capsys, "lineage", "analytics.orders", "--project", str(SHOP), "--approved", "-o", "json")
    message = "--approved needs --base or --base-rev: it approves the move from that version"
    assert code == 2 and err == f"prism-lineage: error: {message}\n"
    assert json.loads(out) == {"error": {"code": "usage", "message": message}}


def test_cli_a_held_environment_writes_no_epoch(capsys, versions, tmp_path):
    base, proposed = versions
    index = tmp_path / "index"
    run(capsys, "lineage", "analytics.orders", "--project", str(base), "--index", str(index), "--sync")
    code, out, _ = run(capsys, "lineage", "analytics.orders", "--project", str(proposed), "--base", str(base),
                       "--index", str(index), "--sync", "-o", "json")
    assert code == 0 and json.loads(out)["environment_status"] == "not computed"
    assert sorted(p.name for p in (index / "shop/prod/alive").iterdir()) == ["v1_1.parquet"]  # not read, not synced
    code, out, _ = run(capsys, "lineage", "analytics.orders", "--project", str(proposed), "--base", str(base),
                       "--index", str(index), "--sync", "--approved", "-o", "json")
    assert "analytics.big_orders" in [a["name"] for a in json.loads(out)["assets"]]
    assert sorted(p.name for p in (index / "shop/prod/alive").iterdir()) == ["v1_1.parquet", "v1_2.parquet"]


def test_cli_base_rev_reads_the_last_synced_revision_from_git(capsys, tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(SHOP, repo / "shop")
    git_commit(repo)
    argv = ("lineage", "analytics.orders", "--project", str(repo / "shop"), "--base-rev", "HEAD", "-o", "json")
    code, out, _ = run(capsys, *argv)
    assert code == 0 and json.loads(out)["environment_status"] == "computed"  # nothing brought
    (repo / "shop/views/big_orders.yaml").write_text(yaml.safe_dump(BIG_ORDERS))
    code, out, _ = run(capsys, *argv)
    assert code == 0 and json.loads(out)["environment_status"] == "not computed"
    code, _, err = run(capsys, "lineage", "analytics.orders", "--project", str(repo / "shop"), "--base-rev", "nope")
    assert code == 3 and "'nope' is not a commit of the repository" in err


def test_review_names_the_environments_that_hold_the_change(capsys, versions):
    base, proposed = versions
    answer = review(base, proposed, OWNER)
    assert not answer.waits_for_approval  # no certified table's change: the change set's rules hold nothing
    assert answer.environments_held_for_review == ["prod"] and answer.environments_not_computed == ["prod"]
    code, out, _ = run(capsys, "review", "--base", str(base), "--project", str(proposed), "--exit-code")
    assert code == 0 and out == ("review of a change (proposed), read in environment prod\n"
                                 "held for review until a person approves the move: prod\n"
                                 "no change to a certified table waits for approval\n"
                                 "lineage not computed while held: prod\n")


def test_review_when_the_proposed_project_cannot_be_read_every_reviewing_environment_holds(versions):
    base, proposed = versions
    # Every file reads, but the declarations do not hold together (a patch of a table nobody declares).
    (proposed / "environments/dev.yaml").write_text(yaml.safe_dump({"patches": {"nope.table": {"owner": "x"}}}))
    answer = review(base, proposed, OWNER)
    assert answer.environments_held_for_review == ["prod"]


def test_a_project_without_the_setting_reviews_nothing_and_holds_nothing(tmp_path):
    tables = [table("s.t", ["a"])]
    base = write_project(tmp_path / "base", tables=tables)
    proposed = write_project(tmp_path / "proposed", tables=tables, views=[view("s.v", "SELECT a FROM s.t", ["s.t"])])
    assert review(base, proposed, OWNER).environments_held_for_review == []
    assert sync_transition(*projects(base, proposed)).status is EnvironmentStatus.COMPUTED
