"""``prism-lineage index check | repair | compact`` (issue 15 item 16): files outside the documented
range are ignored and reported; an unreadable file is quarantined and the answers say which epoch
is missing until a sync writes it again; temporary files and reservations of writers that stopped
are removed; compaction folds old epochs into one without changing any answer."""

from __future__ import annotations

import control_paths  # noqa: F401 - the governance tests' helpers on the path

import json
import shutil

from gov_helpers import SHOP, edit_yaml

from prism_lineage.cli import main
from prism_lineage.control.reading import StoreReader
from prism_lineage.governance import explorer, impact
from prism_lineage.governance.access import viewer_for
from prism_lineage.governance.loading import load_project
from prism_lineage.index import EpochIndex
from prism_lineage.index.epochs import epoch_files
from prism_lineage.index.tables import TABLES


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def synced(capsys, tmp_path, *edits):
    """The shop (a copy) synced into an index, once and then after each edit."""
    root = shutil.copytree(SHOP, tmp_path / "shop")
    index = tmp_path / "index"
    assert run(capsys, "sync", "--project", root, "--index", index, "--env", "prod")[0] == 0
    for edit in edits:
        edit(root)
        assert run(capsys, "sync", "--project", root, "--index", index, "--env", "prod")[0] == 0
    return root, index, index / "shop" / "prod"


def answers(capsys, root, index, credentials=(None, "bob", "carol", "dave")) -> dict:
    """Every answer from the store, JSON without as_of, for every credential and asset."""
    found = {}
    project, access = load_project(root)
    names = [t.full_name for t in project.environment("prod").tables] + [
        v.full_name for v in project.environment("prod").views]
    for credential in credentials:
        for name in names:
            for argv in (("lineage", name, "--depth", "10"), ("lineage", "impact", name)):
                extra = ("--as", credential) if credential else ()
                code, out, _ = run(capsys, *argv, *extra, "--project", root, "--env", "prod", "--index", index,
                                   "-o", "json")
                answer = json.loads(out)
                answer.pop("as_of", None)
                found[(credential, name, argv[1])] = (code, answer)
    return found


def test_a_healthy_index_checks_healthy(capsys, tmp_path):
    _, index, _ = synced(capsys, tmp_path)
    code, out, _ = run(capsys, "index", "check", "--index", index)
    assert code == 0 and out.startswith("shop/prod: 1 committed epochs, ") and "healthy" in out


def test_names_outside_the_documented_range_are_ignored_reported_and_repaired(capsys, tmp_path):
    root, index, env = synced(capsys, tmp_path)
    before = answers(capsys, root, index, credentials=(None,))
    alive = env / "alive" / "v1_1.parquet"
    for name in ("v1_99999999999999999999.parquet", "v1_007.parquet", "v1_0.parquet"):
        shutil.copy(alive, env / "alive" / name)  # a number that does not fit 64 bits, a second 7, zero
    assert EpochIndex(env).epochs() == [1]
    assert run(capsys, "sync", "--project", root, "--index", index, "--env", "prod")[0] == 0  # still syncs
    assert answers(capsys, root, index, credentials=(None,)) == before
    code, out, _ = run(capsys, "index", "check", "--index", index, "-o", "json")
    [report] = json.loads(out)
    assert code == 1 and sorted(f["path"] for f in report["findings"] if f["kind"] == "ignored") == [
        "alive/v1_0.parquet", "alive/v1_007.parquet", "alive/v1_99999999999999999999.parquet"]
    assert run(capsys, "index", "repair", "--index", index)[0] == 0
    assert sorted(p.name for p in (env / "quarantine" / "alive").iterdir()) == [
        "v1_0.parquet", "v1_007.parquet", "v1_99999999999999999999.parquet"]
    assert run(capsys, "index", "check", "--index", index)[0] == 0
    assert answers(capsys, root, index, credentials=(None,)) == before  # ignored files are not missing epochs


def test_an_unreadable_file_is_quarantined_and_the_answer_says_which_epoch_is_missing(capsys, tmp_path):
    def change_sql(root):
        edit_yaml(root, "views/daily_revenue.yaml", lambda d: d.update(sql=d["sql"] + "HAVING SUM(amount) > 0\n"))

    root, index, env = synced(capsys, tmp_path, change_sql)
    healthy = answers(capsys, root, index)
    (env / "parse" / "edges" / "v1_2.parquet").write_bytes(b"PAR1 not really")
    # Nothing changed: the sync writes an epoch without reading the index (the store is whole).
    assert run(capsys, "sync", "--project", root, "--index", index, "--env", "prod")[0] == 0
    view_file = root / "views" / "daily_revenue.yaml"
    original = view_file.read_text()
    edit_yaml(root, "views/daily_revenue.yaml", lambda d: d.update(owner="ann@example.com"))
    code, _, err = run(capsys, "sync", "--project", root, "--index", index, "--env", "prod")
    assert code == 3 and "cannot read the index" in err and "index repair" in err  # refused, nothing lost
    view_file.write_text(original)
    code, out, _ = run(capsys, "index", "check", "--index", index)
    assert code == 1 and "unreadable: parse/edges/v1_2.parquet" in out
    assert run(capsys, "index", "repair", "--index", index)[0] == 0
    assert (env / "quarantine" / "parse" / "edges" / "v1_2.parquet").exists()
    stored = answers(capsys, root, index)
    missing = ("The index is missing epoch 2 of parse/edges (quarantined by prism-lineage index repair): until the "
               "next sync, this answer may lack what that epoch recorded or show what it replaced.")
    owner = stored[(None, "analytics.orders", "analytics.orders")][1]
    assert owner["notes"][-1] == missing
    code, out, _ = run(capsys, "index", "check", "--index", index)
    assert code == 1 and "quarantined" in out and "epoch 2 of parse/edges is missing" in out
    assert run(capsys, "sync", "--project", root, "--index", index, "--env", "prod")[0] == 0  # writes it again
    assert answers(capsys, root, index) == healthy
    assert run(capsys, "index", "check", "--index", index)[0] == 0


def test_leftovers_of_writers_that_stopped_are_removed(capsys, tmp_path):
    root, index, env = synced(capsys, tmp_path)
    (env / "parse" / "edges" / ".tmp-abc.parquet").write_bytes(b"half")
    (env / ".tmp-store-x.sqlite3").write_bytes(b"half")
    (env / ".epochs").mkdir(exist_ok=True)
    (env / ".epochs" / "7").touch()
    code, out, _ = run(capsys, "index", "check", "--index", index)
    assert code == 1 and out.count("temporary:") == 2 and "reservation: .epochs/7" in out
    code, out, _ = run(capsys, "index", "repair", "--index", index)
    assert code == 0 and "removed parse/edges/.tmp-abc.parquet" in out
    assert run(capsys, "index", "check", "--index", index)[0] == 0
    assert run(capsys, "sync", "--project", root, "--index", index, "--env", "prod")[0] == 0
    assert EpochIndex(env).epochs() == [1, 2]  # the reservation's number was not the next anyway


def test_a_stale_or_missing_store_is_rebuilt_keeping_who_may_see_what(capsys, tmp_path):
    root, index, env = synced(capsys, tmp_path)
    before = answers(capsys, root, index, credentials=(None, "bob"))
    shutil.copy(env / "current.sqlite3", tmp_path / "store-epoch-1")
    assert run(capsys, "sync", "--project", root, "--index", index, "--env", "prod")[0] == 0
    shutil.copy(tmp_path / "store-epoch-1", env / "current.sqlite3")  # a store of the epoch before
    code, out, _ = run(capsys, "index", "check", "--index", index)
    assert code == 1 and "stale_store" in out
    assert run(capsys, "index", "repair", "--index", index)[0] == 0
    after = answers(capsys, root, index, credentials=(None, "bob"))
    assert {k: v for k, v in after.items() if k[0] is None} == {k: v for k, v in before.items() if k[0] is None}
    # bob's visibility scope is not in the index: he is told to sync, never the owner's reading.
    assert all(code in (0, 3, 5) for code, _ in after.values())
    assert run(capsys, "sync", "--project", root, "--index", index, "--env", "prod")[0] == 0
    assert answers(capsys, root, index, credentials=(None, "bob")) == before


def _index_answers(env) -> dict:
    """Every answer from the index itself (DuckDB, read back as the rollup), for the owner."""
    lineage = EpochIndex(env).lineage("shop", "prod")
    owner = viewer_for(load_project(SHOP)[1], None)
    return {name: (explorer.explore(lineage, owner, name, "both", 10).to_json(),
                   impact.impact(lineage, owner, name).to_json()) for name in lineage.by_name}


def test_compaction_changes_no_answer(capsys, tmp_path):
    def owner_changes(root):
        edit_yaml(root, "tables/raw/orders.yaml" if (root / "tables/raw/orders.yaml").exists() else
                  next(str(p.relative_to(root)) for p in sorted((root / "tables").rglob("*.yaml"))),
                  lambda d: d.update(owner="someone-else@example.com"))

    def sql_changes(root):
        edit_yaml(root, "views/daily_revenue.yaml", lambda d: d.update(sql=d["sql"] + "HAVING SUM(amount) > 0\n"))

    def view_goes(root):
        (root / "views" / "daily_revenue.yaml").unlink()

    root, index, env = synced(capsys, tmp_path, owner_changes, sql_changes, view_goes)
    assert EpochIndex(env).epochs() == [1, 2, 3, 4]
    before_store, before_index = answers(capsys, root, index), _index_answers(env)
    untouched = tmp_path / "untouched"
    shutil.copytree(index, untouched)
    code, out, _ = run(capsys, "index", "compact", "--index", index)
    assert code == 0 and "compacted every epoch up to 4 into epoch 4" in out
    assert all([e for e, _ in epoch_files(env / t.directory)] in ([4], []) for t in TABLES)
    assert _index_answers(env) == before_index
    assert answers(capsys, root, index) == before_store
    assert run(capsys, "index", "check", "--index", index)[0] == 0
    # The next sync, from the compacted index or from the one left as it was, gives the same answers.
    shutil.copytree(SHOP / "views", root / "views", dirs_exist_ok=True)
    for where in (index, untouched):
        assert run(capsys, "sync", "--project", root, "--index", where, "--env", "prod")[0] == 0
    assert answers(capsys, root, index) == answers(capsys, root, untouched)
    assert _index_answers(env) == _index_answers(untouched / "shop" / "prod")


def test_compaction_keeps_the_newest_epochs(capsys, tmp_path):
    def sql_changes(root):
        edit_yaml(root, "views/daily_revenue.yaml", lambda d: d.update(sql=d["sql"] + "HAVING SUM(amount) > 0\n"))

    root, index, env = synced(capsys, tmp_path, sql_changes)
    assert run(capsys, "sync", "--project", root, "--index", index, "--env", "prod")[0] == 0
    before = _index_answers(env)
    assert run(capsys, "index", "compact", "--index", index, "--keep", "1")[0] == 0
    assert [e for e, _ in epoch_files(env / "alive")] == [2, 3]
    assert _index_answers(env) == before
