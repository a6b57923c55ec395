"""While a sync reads, the store already says what waits (seed 000; the explorer's wish, issue 12):
before the pass reads anything the store holds the new revision's assets with every new or
changed statement (and every one whose looked-up columns moved with it) "Not read yet" and no
parsed edge into it — never a parsed edge an older statement gave, never an empty graph.  The
end of the sync replaces that state with its own; a sync that dies in between leaves a store the
next sync rebuilds, and that ``serve --project`` syncs again."""

from __future__ import annotations

import control_paths  # noqa: F401 - the governance tests' helpers on the path

import json

import pytest

from gov_helpers import table, view, write_project

from prism_lineage.control import reading_pass
from prism_lineage.control.paths import environment_root
from prism_lineage.control.reading import StoreReader
from prism_lineage.control.sync import sync
from prism_lineage.governance import explorer
from prism_lineage.governance.access import viewer_for
from prism_lineage.governance.loading import load_project
from prism_lineage.governance.rollup import sync as rollup_sync
from prism_lineage.index import EpochIndex

ACCESS = {"owner": "o", "roles": {"pub": {"sees": ["p.*"]}, "all": {"sees": ["*"]}},
          "members": {"o": {"roles": ["all"]}, "m": {"roles": ["pub"]}}}
NAMES = ("p.a", "p.v", "p.u", "h.w")


def project(tmp_path, *, public_sql="SELECT x FROM p.a", hidden_sql="SELECT x AS hx FROM p.a"):
    return write_project(tmp_path / "project", tables=[table("p.a", ["x"])], views=[
        view("p.v", public_sql, ["p.a"]), view("h.w", hidden_sql, ["p.a"]), view("p.u", "SELECT x FROM p.v", ["p.v"])],
        access=ACCESS)


def store_answers(root) -> dict:
    with StoreReader(root) as store:
        found = {"as_of": store.as_of()}
        for credential in (None, "m"):
            stored = store.viewer(credential)
            for name in NAMES:
                try:
                    found[credential, name] = store.explore(stored, name, "both", 3).to_json()
                except Exception as error:  # noqa: BLE001 - refusals compared by kind
                    found[credential, name] = type(error).__name__
        found["status"] = dict(store.connection.execute("SELECT full_name, sql_status FROM assets"))
        found["parsed_into"] = {name for (name,) in store.connection.execute(
            "SELECT t.full_name FROM edges e JOIN assets t ON t.id = e.dst WHERE e.mark = 'parsed'")}
    return found


def expected_answers(project_dir, lineage) -> dict:
    _, access = load_project(project_dir)
    found = {}
    for credential in (None, "m"):
        viewer = viewer_for(access, credential)
        for name in NAMES:
            try:
                found[credential, name] = explorer.explore(lineage, viewer, name, "both", 3).to_json()
            except Exception as error:  # noqa: BLE001
                found[credential, name] = type(error).__name__
    return found


def watching_pool(seen: list, root):
    """The real pool, started after the store was first written: what the store said then."""

    def start(jobs):
        seen.append(store_answers(root))
        return reading_pass._Pool(jobs)

    return start


def test_while_a_sync_reads_what_is_new_says_not_read_yet(tmp_path):
    root_dir = project(tmp_path)
    index = tmp_path / "index"
    sync(root_dir, index, jobs=1)
    root = environment_root(index, "t", "prod")
    old = EpochIndex(root).lineage("t", "prod")
    edited = project(tmp_path, public_sql="SELECT x + 1 AS x FROM p.a")
    seen: list = []
    done = sync(edited, index, jobs=1, full=True, start_pool=watching_pool(seen, root))
    [during] = seen
    assert during["as_of"]["reading"] is True and during["as_of"]["epoch"] is None
    # p.v changed; p.u read p.v's columns, which are not known until p.v is read again.
    assert during["status"] == {"p.a": None, "p.v": "Not read yet", "p.u": "Not read yet", "h.w": None}
    assert during["parsed_into"] == {"h.w"}  # no parsed edge an older statement gave
    # Exactly the rollup's answer for this revision with nothing new read (parsed: Recorded).
    project_now, _ = load_project(edited)
    waiting = rollup_sync(project_now, "prod", previous=old, budget=0)
    expected = expected_answers(edited, waiting)
    assert {k: v for k, v in during.items() if k in expected} == expected
    answer = json.loads(during[None, "p.v"])
    assert answer["marks"]["parsed"] == "Recorded"
    assert any(e["mark"] == "declared" for e in answer["edges"])  # p.a -> p.v is drawn: never empty
    # The end of the sync replaces it with its own state, equal to a sync into a new index.
    after = store_answers(root)
    assert "reading" not in after["as_of"] and after["as_of"]["epoch"] == done.epoch
    assert set(after["status"].values()) == {None} and after["parsed_into"] == {"p.v", "p.u", "h.w"}
    fresh = tmp_path / "fresh"
    sync(edited, fresh, jobs=1)
    again = store_answers(environment_root(fresh, "t", "prod"))
    assert {k: v for k, v in after.items() if k != "as_of"} == {k: v for k, v in again.items() if k != "as_of"}


class _Died(BaseException):
    pass


def test_a_sync_that_dies_after_its_first_write_is_rebuilt_by_the_next(tmp_path):
    from prism_lineage.server.syncing import RevisionWatcher

    root_dir = project(tmp_path)
    index = tmp_path / "index"
    sync(root_dir, index, jobs=1)
    root = environment_root(index, "t", "prod")
    edited = project(tmp_path, hidden_sql="SELECT x AS y FROM p.a")

    def die(jobs):
        raise _Died()

    with pytest.raises(_Died):
        sync(edited, index, jobs=1, full=True, start_pool=die)
    left = store_answers(root)
    assert left["as_of"]["reading"] is True and left["status"]["h.w"] == "Not read yet"
    # serve --project does not take it for a synced revision: it syncs again.
    assert RevisionWatcher(str(edited), str(index), None).stored_revision() == (True, None)
    done = sync(edited, index, jobs=1)
    assert done.path == "full" and done.store_rebuilt
    fresh = tmp_path / "fresh"
    sync(edited, fresh, jobs=1)
    after, again = store_answers(root), store_answers(environment_root(fresh, "t", "prod"))
    assert "reading" not in after["as_of"]
    assert {k: v for k, v in after.items() if k != "as_of"} == {k: v for k, v in again.items() if k != "as_of"}


def test_the_cli_says_a_sync_is_still_reading(tmp_path, capsys):
    from prism_lineage.cli import main

    root_dir = project(tmp_path)
    index = tmp_path / "index"
    sync(root_dir, index, jobs=1)
    edited = project(tmp_path, public_sql="SELECT x + 1 AS x FROM p.a")

    def stop(jobs):
        raise _Died()

    with pytest.raises(_Died):
        sync(edited, index, jobs=1, full=True, start_pool=stop)
    capsys.readouterr()
    assert main(["lineage", "p.v", "--project", str(edited), "--index", str(index)]) == 0
    out = capsys.readouterr().out
    assert "Not read yet" in out and "as of a sync still reading" in out
