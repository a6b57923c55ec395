"""Every load error is a clear error (issue 10 item 4): random corruptions of the fixtures'
manifest, catalog and YAML files — a key deleted, a value of the wrong type, the text truncated —
never give an internal error (exit 70) or a traceback.  The command either answers, or refuses
with one line that names the file (and, for YAML, the line) and exit 3.

The fixtures: both dbt projects (tests/fixtures/dbt_project, dbt_project_2: manifest.json and
catalog.json), and the native example examples/shop (project.yaml, access.yaml, an environment's
file and one declaration of each kind).
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gov_helpers import DBT, DBT2, SHOP
from prism_lineage.cli import main

# (fixture, file, an asset the command asks about)
FILES = [
    (DBT, "target/manifest.json", "customers"),
    (DBT, "target/catalog.json", "customers"),
    (DBT2, "target/manifest.json", "customers"),
    (DBT2, "target/catalog.json", "customers"),
    (SHOP, "project.yaml", "analytics.orders"),
    (SHOP, "access.yaml", "analytics.orders"),
    (SHOP, "environments/prod.yaml", "analytics.orders"),
    (SHOP, "tables/analytics_orders.yaml", "analytics.orders"),
    (SHOP, "views/daily_revenue.yaml", "analytics.orders"),
    (SHOP, "pipelines/ingest.yaml", "analytics.orders"),
]
# The values a wrong type is drawn from.
WRONG = [None, 0, -1, 1.5, True, "", "x", "\x1b[31m", [], [1, "a"], {}, {"a": 1}, {"name": None}]
# Manifest keys the loader reads: paths are drawn mostly under them (the others, macros and docs,
# are many and unread, so a corruption there tells little).
READ_KEYS = ("metadata", "nodes", "sources")
_IGNORED = shutil.ignore_patterns("*.duckdb", "index.html", "partial_parse.msgpack", "run", "compiled",
                                  "graph*", "run_results.json", "semantic_manifest.json", "logs")


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    """One working copy of each fixture, restored after each example."""
    found = {}
    for root in {DBT, DBT2, SHOP}:
        target = tmp_path_factory.mktemp(root.name) / root.name
        shutil.copytree(root, target, ignore=_IGNORED)
        found[root] = target
    return found


def _path(data, document, under_root: tuple[str, ...]) -> list:
    """A random path into ``document`` (list of keys and indices), at least one step deep."""
    path: list = []
    current = document
    while isinstance(current, (dict, list)) and current:
        if isinstance(current, dict):
            keys = sorted(current, key=str)
            if not path and under_root and data.draw(st.integers(0, 9), label="read key") < 8:
                keys = [k for k in under_root if k in current] or keys
            key = data.draw(st.sampled_from(keys), label="key")
        else:
            key = data.draw(st.integers(0, len(current) - 1), label="index")
        path.append(key)
        current = current[key]
        if len(path) >= 1 and data.draw(st.integers(0, 3), label="stop") == 0:
            break
    return path


def _corrupted(data, text: str, is_json: bool) -> tuple[str, str]:
    """(corrupted text, what was done) for the file's text."""
    how = data.draw(st.sampled_from(["delete", "retype", "retype", "truncate"]), label="how")
    if how == "truncate":
        cut = data.draw(st.integers(0, max(len(text) - 1, 0)), label="cut")
        return text[:cut], f"truncated at {cut}"
    document = json.loads(text) if is_json else yaml.safe_load(text)
    if not isinstance(document, (dict, list)) or not document:
        return "", "emptied"
    document = copy.deepcopy(document)
    path = _path(data, document, READ_KEYS if is_json else ())
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    if how == "delete":
        del parent[last]
    else:
        parent[last] = data.draw(st.sampled_from(WRONG), label="value")
    done = f"{how} {'.'.join(map(str, path))}"
    return (json.dumps(document) if is_json else yaml.safe_dump(document, sort_keys=False)), done


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(data=st.data())
def test_a_corrupted_project_file_is_refused_by_name_never_an_internal_error(copies, capsys, data):
    root, relative, asset = data.draw(st.sampled_from(FILES), label="file")
    project = copies[root]
    path = project / relative
    original = (root / relative).read_text(encoding="utf-8")
    text, done = _corrupted(data, original, relative.endswith(".json"))
    path.write_text(text, encoding="utf-8")
    try:
        code = main(["lineage", asset, "--project", str(project)])
    finally:
        path.write_text(original, encoding="utf-8")
    out, err = capsys.readouterr()
    assert code != 70 and "internal error" not in err and "Traceback" not in err, (relative, done, err)
    if code != 0:
        lines = err.rstrip("\n").split("\n")
        assert len(lines) == 1 and lines[0].startswith("prism-lineage: error: "), (relative, done, err)
        if code == 3:  # a load error: the file is named (another file's name would mislead)
            assert relative in err, (relative, done, err)
        else:  # what the corruption removed was the asset asked about, or the environment
            assert code in (2, 5) and ("no table or view" in err or "environment" in err), (relative, done, err)


# --- the line names the file and the key ------------------------------------------------------

def _refusal(capsys, project, asset="customers") -> str:
    code = main(["lineage", asset, "--project", str(project)])
    err = capsys.readouterr().err
    assert code == 3, err
    return err.removeprefix("prism-lineage: error: ").rstrip("\n")


def _edit_json(path: Path, change) -> None:
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document))


def test_a_manifest_value_of_another_type_names_the_node_and_key(tmp_path, capsys):
    project = shutil.copytree(DBT2, tmp_path / "p", ignore=_IGNORED)
    _edit_json(project / "target/manifest.json",
               lambda d: d["nodes"]["model.harbor.orders"]["config"].update(materialized=5))
    assert _refusal(capsys, project) == ("target/manifest.json: nodes['model.harbor.orders'].config.materialized "
                                         "must be text, got a number")
    _edit_json(project / "target/manifest.json",
               lambda d: d["nodes"]["model.harbor.orders"].update(config={}, depends_on={"nodes": "model.x"}))
    assert _refusal(capsys, project) == ("target/manifest.json: nodes['model.harbor.orders'].depends_on.nodes "
                                         "must be a list, got text")


def test_a_manifest_node_without_a_name_is_named(tmp_path, capsys):
    project = shutil.copytree(DBT2, tmp_path / "p", ignore=_IGNORED)
    _edit_json(project / "target/manifest.json", lambda d: d["sources"]["source.harbor.raw.orders"].pop("name"))
    assert _refusal(capsys, project) == ("target/manifest.json: sources['source.harbor.raw.orders'] lacks 'name', "
                                         "which dbt writes for every such node")


def test_a_catalog_column_of_another_shape_names_the_catalog_not_the_manifest(tmp_path, capsys):
    project = shutil.copytree(DBT2, tmp_path / "p", ignore=_IGNORED)
    _edit_json(project / "target/catalog.json",
               lambda d: d["nodes"]["model.harbor.orders"]["columns"].update(order_id=-1))
    assert _refusal(capsys, project) == ("target/catalog.json: nodes['model.harbor.orders'].columns.order_id must "
                                         "be a mapping, got a number")


def test_a_truncated_manifest_says_where_it_stops(tmp_path, capsys):
    project = shutil.copytree(DBT, tmp_path / "p", ignore=_IGNORED)
    path = project / "target/manifest.json"
    path.write_text(path.read_text()[:100])
    assert _refusal(capsys, project).startswith("cannot read target/manifest.json as JSON: ")
    assert "(line 1, column " in _refusal(capsys, project)


@pytest.mark.parametrize("relative, path, value, key", [
    ("tables/analytics_orders.yaml", ("columns", 1, "type"), [1], "columns.1.type"),
    ("pipelines/ingest.yaml", ("assets", 1, "sql"), 5, "assets.1.sql"),
    ("access.yaml", ("members", "carol", "roles"), 5, "members.carol.roles"),
    ("views/daily_revenue.yaml", ("reads",), "analytics.orders", "reads"),
])
def test_a_yaml_value_of_another_type_names_the_file_line_and_key(tmp_path, capsys, relative, path, value, key):
    project = shutil.copytree(SHOP, tmp_path / "p")
    document = yaml.safe_load((project / relative).read_text())
    parent = document
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = value
    text = yaml.safe_dump(document, sort_keys=False)
    (project / relative).write_text(text)
    # The line the key (or the list item holding it) is on in the file as written.
    node = yaml.compose(text)
    for part in path:
        if isinstance(node, yaml.MappingNode):
            key_node, node = next((k, v) for k, v in node.value if k.value == str(part))
            line = key_node.start_mark.line + 1
        else:
            node = node.value[part]
            line = node.start_mark.line + 1
    message = _refusal(capsys, project, "analytics.orders")
    assert message.startswith(f"{relative}, line {line}: {key}: "), message
