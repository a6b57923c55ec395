"""Loading hostile and broken projects (issue 15 items 7-9, 13, 18, 19): names checked before a
path is made of them, only regular files under the project read (links out of it, FIFOs and
devices refused, sizes bounded), nesting bounded, duplicate and unknown keys refused, what a
file says checked strictly, an unreadable proposed version waiting."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from gov_helpers import DBT, SHOP, edit_yaml, table, write_project
from prism_lineage.cli import main
from prism_lineage.governance.access import OWNER
from prism_lineage.governance.errors import ProjectError
from prism_lineage.governance.loading import load_project
from prism_lineage.governance.review import review


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def shop(tmp_path) -> Path:
    return Path(shutil.copytree(SHOP, tmp_path / "shop"))


def line_of(path: Path, text: str) -> int:
    """The first line of ``path`` holding ``text`` (what a refusal should point at)."""
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def refused(root, match: str) -> str:
    with pytest.raises(ProjectError) as error:
        load_project(root)
    assert match in str(error.value), str(error.value)
    return str(error.value)


# --- item 7: names become paths only when they are names --------------------------------------------


@pytest.mark.parametrize("name", ["/tmp/abs", "../up", "a/b", "..", ".hidden", "a..b", "", "x" * 129, "nul\x00",
                                  "tab\tname", "spa ce"])
def test_project_and_environment_names_outside_the_character_set_are_refused(shop, name):
    edit_yaml(shop, "project.yaml", lambda d: d.update(name=name))
    refused(shop, "project name")
    edit_yaml(shop, "project.yaml", lambda d: d.update(name="shop", environments=[name], default_environment=None))
    refused(shop, "environment name")


def test_a_name_like_a_path_writes_nothing_outside_the_index(capsys, shop, tmp_path):
    index = tmp_path / "index"
    before = sorted(p.name for p in tmp_path.iterdir())
    for settings in ({"name": str(tmp_path / "escaped")}, {"environments": ["../escaped"]}):
        edit_yaml(shop, "project.yaml", lambda d: d.update(settings))
        code, _, err = run(capsys, "sync", "--project", str(shop), "--index", str(index))
        assert code == 3 and "refused" in err
        edit_yaml(shop, "project.yaml", lambda d: d.update(name="shop", environments={"dev": {}, "prod": {}}))
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_link_inside_the_index_leading_out_of_it_is_refused(capsys, tmp_path):
    index, outside = tmp_path / "index", tmp_path / "outside"
    index.mkdir()
    outside.mkdir()
    (index / "shop").symlink_to(outside)
    code, _, err = run(capsys, "sync", "--project", str(SHOP), "--index", str(index))
    assert code == 3 and "outside" in err
    assert list(outside.iterdir()) == []


# --- item 8: an environment's file is the project's own --------------------------------------------------


def test_an_environment_file_outside_the_project_is_never_read_or_echoed(tmp_path):
    secret = tmp_path / "secret.yaml"
    secret.write_text("patches:\n  the_secret_key: {owner: x}\n")
    root = write_project(tmp_path / "p", environments=["prod"], tables=[table("a.t", ["x"])])
    (root / "environments").mkdir()
    (root / "environments" / "prod.yaml").symlink_to(secret)
    message = refused(root, "leads outside the project")
    assert "the_secret_key" not in message


# --- item 9: regular files under the root, bounded ------------------------------------------------------


def test_a_declaration_linked_from_outside_the_project_is_refused(tmp_path):
    outside = tmp_path / "outside.yaml"
    outside.write_text(yaml.safe_dump(table("leak.secret", ["password"])))
    root = write_project(tmp_path / "p", tables=[table("a.t", ["x"])])
    (root / "tables" / "linked.yaml").symlink_to(outside)
    assert "password" not in refused(root, "tables/linked.yaml leads outside the project")


def test_a_link_to_a_directory_outside_is_not_followed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text(yaml.safe_dump(table("leak.secret", ["password"])))
    root = write_project(tmp_path / "p", tables=[table("a.t", ["x"])])
    (root / "tables" / "more").symlink_to(outside, target_is_directory=True)
    project, _ = load_project(root)
    assert [t.full_name for t in project.environments[0].tables] == ["a.t"]
    shutil.rmtree(root / "tables")
    (root / "tables").symlink_to(outside, target_is_directory=True)  # the kind's own directory
    refused(root, "tables leads outside the project")


def test_a_link_inside_the_project_is_followed(tmp_path):
    root = write_project(tmp_path / "p", tables=[table("a.t", ["x"])])
    (root / "shared").mkdir()
    (root / "shared" / "u.yaml").write_text(yaml.safe_dump(table("a.u", ["y"])))
    (root / "tables" / "u.yaml").symlink_to(root / "shared" / "u.yaml")
    project, _ = load_project(root)
    assert [t.full_name for t in project.environments[0].tables] == ["a.t", "a.u"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_at_once_not_waited_on(tmp_path):
    root = write_project(tmp_path / "p", tables=[table("a.t", ["x"])])
    os.mkfifo(root / "tables" / "pipe.yaml")
    refused(root, "tables/pipe.yaml is not a regular file (a FIFO)")
    os.unlink(root / "tables" / "pipe.yaml")
    os.mkfifo(root / "access.yaml")
    refused(root, "access.yaml is not a regular file (a FIFO)")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_link_to_a_device_is_refused(tmp_path):
    root = write_project(tmp_path / "p", tables=[table("a.t", ["x"])])
    (root / "tables" / "zero.yaml").symlink_to("/dev/zero")
    refused(root, "tables/zero.yaml leads outside the project")


def test_a_file_over_the_limit_is_refused_and_the_limit_is_configurable(tmp_path, monkeypatch):
    root = write_project(tmp_path / "p", tables=[table("a.t", ["x"])])
    (root / "tables" / "huge.yaml").write_text("# " + "x" * 20_000 + "\n" + yaml.safe_dump(table("a.u", ["y"])))
    monkeypatch.setenv("PRISM_LINEAGE_MAX_FILE_BYTES", "10000")
    refused(root, "tables/huge.yaml is larger than 10,000 bytes")
    monkeypatch.setenv("PRISM_LINEAGE_MAX_FILE_BYTES", "100000")
    assert len(load_project(root)[0].environments[0].tables) == 2
    monkeypatch.setenv("PRISM_LINEAGE_MAX_FILE_BYTES", "lots")
    with pytest.raises(Exception, match="PRISM_LINEAGE_MAX_FILE_BYTES must be a positive number"):
        load_project(root)


# --- item 13: nesting without bound -------------------------------------------------------------------


@pytest.mark.parametrize("depth", [300, 5_000, 100_000])
def test_deeply_nested_yaml_and_json_are_refused_not_crashed(tmp_path, depth):
    root = write_project(tmp_path / "p", tables=[table("a.t", ["x"])])
    (root / "tables" / "deep.yaml").write_text("doc: " + "[" * depth + "]" * depth + "\n")
    refused(root, "tables/deep.yaml")
    dbt = Path(shutil.copytree(DBT, tmp_path / "dbt"))
    manifest = json.loads((dbt / "target/manifest.json").read_text())
    manifest["nodes"]["deep"] = json.loads("[" * 50 + "]" * 50)  # shallow enough to build …
    (dbt / "target/manifest.json").write_text(json.dumps(manifest)[:-1] + ', "x": ' + "[" * depth + "]" * depth + "}")
    refused(dbt, "target/manifest.json nests more deeply")


def test_deep_json_is_refused_even_when_the_recursion_limit_was_raised(tmp_path):
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(200_000)  # as explaining a deep query leaves it
    try:
        test_deeply_nested_yaml_and_json_are_refused_not_crashed(tmp_path, 150_000)
    finally:
        sys.setrecursionlimit(before)


# --- item 18: what the gate cannot read waits -------------------------------------------------------


def test_a_proposed_version_that_cannot_be_read_at_all_waits(shop, tmp_path):
    base = shutil.copytree(SHOP, tmp_path / "base")
    (shop / "project.yaml").write_text("name: shop\nname: twice\n")
    answer = review(base, shop, OWNER)
    assert answer.waits_for_approval and [h.table for h in answer.held] == ["*"]
    assert "cannot be read" in answer.held[0].reason


def test_patch_keys_of_mixed_types_wait_instead_of_crashing(capsys, shop, tmp_path):
    base = shutil.copytree(SHOP, tmp_path / "base")
    (shop / "environments" / "prod.yaml").write_text("patches:\n  1: {owner: x}\n  raw.orders: {owner: y}\n")
    code, out, _ = run(capsys, "review", "--base", str(base), "--project", str(shop), "--exit-code", "-o", "json")
    answer = json.loads(out)
    assert code == 9 and answer["held"][0]["file"] == "environments/prod.yaml"


def test_a_dbt_seed_moved_onto_a_source_s_relation_is_one_table_and_its_change_waits(capsys, tmp_path):
    # A seed and a source naming one relation are one asset (issue 10 item 1): the certified
    # source's table now takes the seed's columns, a change that waits.
    base = Path(shutil.copytree(DBT, tmp_path / "base"))
    proposed = Path(shutil.copytree(DBT, tmp_path / "proposed"))
    manifest = json.loads((proposed / "target/manifest.json").read_text())
    seed = next(n for n in manifest["nodes"].values() if n["resource_type"] == "seed")
    source = next(iter(manifest["sources"].values()))
    seed["schema"], seed["alias"] = source["schema"], source.get("identifier") or source["name"]
    (proposed / "target/manifest.json").write_text(json.dumps(manifest))
    code, out, _ = run(capsys, "review", "--base", str(base), "--project", str(proposed), "--exit-code")
    assert code == 9 and ("raw.orders in models/staging/sources.yml: removes 4 columns (id, customer_id, ordered_at, "
                          "status) of a certified table") in out
    code, out, _ = run(capsys, "lineage", "raw.orders", "--project", str(proposed), "-o", "json")
    [orders] = [a for a in json.loads(out)["assets"] if a["name"] == "raw.orders"]
    assert code == 0 and orders["notes"][0].startswith("One relation with several dbt names: seed country_codes")


# --- item 19: refused instead of accepted silently ----------------------------------------------------


def test_an_unknown_dialect_is_refused_by_name(shop):
    edit_yaml(shop, "project.yaml", lambda d: d.update(dialect="klingon"))
    refused(shop, "unknown dialect 'klingon'")
    edit_yaml(shop, "project.yaml", lambda d: d.update(dialect="duckdb"))
    edit_yaml(shop, "views/daily_revenue.yaml", lambda d: d.update(dialect="vulcan"))
    refused(shop, "unknown dialect 'vulcan'")
    (shop / "environments" / "dev.yaml").write_text("dialect: romulan\n")
    edit_yaml(shop, "views/daily_revenue.yaml", lambda d: d.pop("dialect"))
    refused(shop, "unknown dialect 'romulan'")


def test_unknown_keys_of_project_and_environment_files_are_refused(shop):
    edit_yaml(shop, "project.yaml", lambda d: d.update(defualt_environment="prod"))
    line = line_of(shop / "project.yaml", "defualt_environment")
    refused(shop, f"project.yaml, line {line}: unknown key 'defualt_environment'")
    edit_yaml(shop, "project.yaml", lambda d: d.pop("defualt_environment"))
    (shop / "environments" / "dev.yaml").write_text("dialect: duckdb\npatchs: {}\n")
    refused(shop, "environments/dev.yaml, line 2: unknown key 'patchs'")


def test_duplicate_keys_are_refused_naming_both_lines(shop):
    text = (shop / "access.yaml").read_text().replace("  dave: {roles: [viewer]}",
                                                       "  dave: {roles: [viewer]}\n  dave: {roles: [admin]}")
    (shop / "access.yaml").write_text(text)
    lines = text.splitlines()
    first = lines.index("  dave: {roles: [viewer]}") + 1
    refused(shop, f"access.yaml: key 'dave' is given twice, at lines {first} and {first + 1}")


def test_merge_keys_are_not_duplicates(tmp_path):
    root = write_project(tmp_path / "p", tables=[table("a.t", ["x"])])
    (root / "tables" / "u.yaml").write_text("base: &b {namespace: a, name: u}\n<<: *b\n")
    with pytest.raises(ProjectError, match="base"):  # refused as an unknown field, not as a duplicate
        load_project(root)


@pytest.mark.parametrize("value", ["'yes'", "1", "'true'", "on_call"])
def test_flags_must_be_booleans(shop, value):
    text = (shop / "tables/analytics_orders.yaml").read_text().replace("certified: true", f"certified: {value}")
    (shop / "tables/analytics_orders.yaml").write_text(text)
    line = line_of(shop / "tables/analytics_orders.yaml", "certified:")
    refused(shop, f"tables/analytics_orders.yaml, line {line}: certified")


@pytest.mark.parametrize("field", ["namespace", "name"])
def test_nul_and_control_characters_in_identifiers_are_refused(shop, field):
    edit_yaml(shop, "tables/raw_orders.yaml", lambda d: d.update({field: "ord\x00ers"}))
    refused(shop, "control characters")
    edit_yaml(shop, "tables/raw_orders.yaml", lambda d: d.update({field: "ord\x1b[2Jers"}))
    refused(shop, "control characters")


@pytest.mark.parametrize("version, message", [
    ("https://schemas.getdbt.com/dbt/manifest/v4.json", "manifest schema v4 is not supported (an older dbt"),
    ("https://schemas.getdbt.com/dbt/manifest/v13.json", "manifest schema v13 is not supported (a newer dbt"),
    (None, "metadata.dbt_schema_version is missing"),
])
def test_a_manifest_of_a_schema_version_not_read_is_refused_by_name(tmp_path, version, message):
    dbt = Path(shutil.copytree(DBT, tmp_path / "dbt"))
    manifest = json.loads((dbt / "target/manifest.json").read_text())
    manifest["metadata"]["dbt_schema_version"] = version
    (dbt / "target/manifest.json").write_text(json.dumps(manifest))
    refused(dbt, message)


@pytest.mark.parametrize("argv", [
    ["lineage", "analytics.orders", "--depth", "x"],
    ["lineage", "analytics.orders", "--no-such-option"],
    ["lineage", "a", "b", "c"],
    ["review"],
])
def test_with_json_output_every_failure_prints_the_error_object(capsys, argv):
    code, out, err = run(capsys, *argv, "--project", str(SHOP), "-o", "json")
    assert code == 2 and err.startswith("prism-lineage: error: ")
    assert set(json.loads(out)) == {"error"} and json.loads(out)["error"]["code"] == "usage"
