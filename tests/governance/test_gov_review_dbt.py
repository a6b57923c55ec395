"""The review gate for a dbt project: the base's ``target/manifest.json`` (and ``catalog.json``)
against the working tree's.  Each change is made to a copy of the committed fixture the way dbt
would write it after the change (the manifest and the catalog edited as dbt regenerates them)."""

from __future__ import annotations

import json
import shutil

import pytest

from gov_helpers import DBT, SHOP, git_commit
from prism_lineage.cli import main
from prism_lineage.governance.access import OWNER
from prism_lineage.governance.errors import ProjectError
from prism_lineage.governance.review import review
from prism_lineage.governance.review_dbt import CATALOG_NOTE

KEPT = ("dbt_project.yml", "profiles.yml", "models", "seeds", "target/manifest.json", "target/catalog.json")
ORDERS = "model.jaffle.orders"  # certified (meta), a table: main.orders
RAW_ORDERS = "source.jaffle.raw.orders"  # certified (meta), a source: raw.orders
CUSTOMERS = "model.jaffle.customers"  # not certified


def copy_fixture(destination):
    """The files a clone of the repository holds (target/ keeps only the two JSON files)."""
    for name in KEPT:
        source, target = DBT / name, destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if source.is_dir() else shutil.copy)(source, target)
    return destination


@pytest.fixture
def versions(tmp_path):
    return copy_fixture(tmp_path / "base"), copy_fixture(tmp_path / "proposed")


def edit(root, name, change):
    path = root / "target" / name
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document))


def catalog_columns(document, uid):
    return document["sources" if uid.startswith("source.") else "nodes"][uid]["columns"]


def test_no_change_waits_for_nothing(versions):
    answer = review(*versions, OWNER)
    assert (answer.environment, answer.waits_for_approval, answer.held, answer.impact) == ("dev", False, [], [])
    assert answer.environments_held_for_review == [] and answer.notes == []


def test_removing_a_column_of_a_certified_model_waits_and_shows_impact(versions):
    base, proposed = versions
    edit(proposed, "catalog.json", lambda d: catalog_columns(d, ORDERS).pop("amount"))
    answer = review(base, proposed, OWNER)
    [held] = answer.held
    assert (held.table, held.file, held.reason) == (
        "main.orders", "models/marts/orders.sql", "removes 1 column (amount) of a certified table")
    # A dbt environment does not review: the change waits in the gate, the lineage stays computed.
    assert answer.waits_for_approval and answer.environments_not_computed == []
    [section] = answer.impact
    # customers reads orders (a table of the pipeline), top_customers reads customers (a view).
    assert [(a.kind, a.name) for a in section.assets] == [("table", "main.customers"), ("view", "main.top_customers")]
    assert (section.count, section.at_least, section.explorer_link) == (2, False, True)


@pytest.mark.parametrize("uid, change, reason", [
    (RAW_ORDERS, lambda c: c["status"].update(type="INTEGER"), "retypes 1 column (status: VARCHAR to INTEGER)"),
    (ORDERS, lambda c: c.update(total={**c.pop("amount"), "name": "total"}), "removes 1 column (amount)"),  # no ids
    (RAW_ORDERS, lambda c: c["ordered_at"].update(type="STRUCT(d DATE, tz VARCHAR)"),
     "retypes 1 column (ordered_at: DATE to STRUCT(d DATE, tz VARCHAR))"),
])
def test_breaking_column_changes_of_certified_tables_wait(versions, uid, change, reason):
    base, proposed = versions
    edit(proposed, "catalog.json", lambda d: change(catalog_columns(d, uid)))
    [held] = review(base, proposed, OWNER).held
    assert held.reason == f"{reason} of a certified table"


def test_adding_a_column_does_not_wait(versions):
    base, proposed = versions
    edit(proposed, "catalog.json", lambda d: catalog_columns(d, ORDERS).update(
        currency={"type": "VARCHAR", "index": 5, "name": "currency", "comment": None}))
    assert not review(base, proposed, OWNER).waits_for_approval


def test_changing_the_schema_or_alias_waits(versions):
    base, proposed = versions
    edit(proposed, "manifest.json", lambda d: d["nodes"][ORDERS].update(alias="all_orders"))
    [held] = review(base, proposed, OWNER).held
    assert held.reason == "changes the namespace or the name the file declares of a certified table"
    edit(proposed, "manifest.json", lambda d: d["sources"][RAW_ORDERS].update(schema="landing"))
    assert [h.table for h in review(base, proposed, OWNER).held] == ["main.orders", "raw.orders"]


def test_deleting_a_certified_model_or_taking_a_source_out_of_its_yaml_waits(versions):
    base, proposed = versions
    edit(proposed, "manifest.json", lambda d: d["nodes"].pop(ORDERS))
    [held] = review(base, proposed, OWNER).held
    assert (held.file, held.reason) == ("models/marts/orders.sql", "deletes the file of a certified table")
    edit(proposed, "manifest.json", lambda d: d["sources"].pop(RAW_ORDERS))  # sources.yml still declares others
    held = {h.table: h.reason for h in review(base, proposed, OWNER).held}
    assert held["raw.orders"] == "removes the declaration of a certified table"


def test_changes_to_a_table_that_is_not_certified_do_not_wait_until_it_is(versions):
    base, proposed = versions
    edit(proposed, "catalog.json", lambda d: catalog_columns(d, CUSTOMERS).pop("full_name"))
    assert not review(base, proposed, OWNER).waits_for_approval
    edit(proposed, "manifest.json", lambda d: d["nodes"][CUSTOMERS]["meta"].update(certified=True))
    [held] = review(base, proposed, OWNER).held  # certified in the proposed version: it counts
    assert held.table == "main.customers"


def test_without_a_catalog_in_one_version_columns_are_compared_as_the_yaml_declares_them(versions):
    base, proposed = versions
    (proposed / "target/catalog.json").unlink()  # as after 'dbt compile' without 'dbt docs generate'
    answer = review(base, proposed, OWNER)
    # No catalog column reads as removed: raw.orders' YAML declares 'id' in both versions.
    assert not answer.waits_for_approval
    assert answer.notes == [CATALOG_NOTE.format(count=2, s="s")]
    edit(proposed, "manifest.json", lambda d: d["sources"][RAW_ORDERS]["columns"].pop("id"))
    [held] = review(base, proposed, OWNER).held
    assert (held.table, held.reason) == ("raw.orders", "removes 1 column (id) of a certified table")


def test_an_unreadable_manifest_cannot_tell_so_the_change_waits(versions):
    base, proposed = versions
    (proposed / "target/manifest.json").write_text("{not json")
    answer = review(base, proposed, OWNER)
    [held] = answer.held
    assert (held.table, held.file) == ("*", "target/manifest.json")
    assert held.reason == "cannot tell whether the tables it declares are certified: the file cannot be read"


def test_a_dbt_base_against_a_native_working_tree_is_refused(versions, tmp_path):
    base, _ = versions
    native = shutil.copytree(SHOP, tmp_path / "native")
    with pytest.raises(ProjectError, match="is not a dbt project"):
        review(base, native, OWNER)
    with pytest.raises(ProjectError, match="is not a native project"):
        review(native, base, OWNER)


def test_cli_review_of_a_dbt_project_against_a_git_revision(capsys, tmp_path):
    repo = tmp_path / "repo"
    project = copy_fixture(repo / "jaffle")
    git_commit(repo, force=True)  # target/ is committed for the gate to read
    argv = ["review", "--base-rev", "HEAD", "--project", str(project), "--exit-code"]
    assert main(argv) == 0 and "nothing waits for approval" in capsys.readouterr().out
    edit(project, "catalog.json", lambda d: catalog_columns(d, ORDERS)["amount"].update(type="DECIMAL(12,2)"))
    assert main(argv) == 9
    out = capsys.readouterr().out
    assert out.startswith("review of a change (proposed), read in environment dev\nwaits for approval:\n"
                          "  main.orders in models/marts/orders.sql: retypes 1 column (amount: DOUBLE to "
                          "DECIMAL(12,2)) of a certified table\n")
    assert "2 assets downstream" in out


def test_cli_a_revision_without_the_manifest_says_so(capsys, tmp_path):
    repo = tmp_path / "repo"
    project = copy_fixture(repo / "jaffle")
    git_commit(repo, "jaffle/dbt_project.yml")  # a revision without target/
    code = main(["review", "--base-rev", "HEAD", "--project", str(project)])
    assert code == 3 and "has no target/manifest.json" in capsys.readouterr().err
