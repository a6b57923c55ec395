"""``prism-lineage sync`` and ``lineage --index``: one epoch per sync, answers from the store as of
the last sync (which they name), not computed before the first, the revision a parsed edge was
read at, one writer at a time."""

from __future__ import annotations

import control_paths  # noqa: F401 - the governance tests' helpers on the path

import json
import multiprocessing
import shutil
import subprocess
import sys

import pytest
import yaml

from gov_helpers import SHOP, edit_yaml, git_commit

from prism_lineage.cli import main
from prism_lineage.control.locking import WriterLock
from prism_lineage.index import EpochIndex


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_sync_then_answers_from_the_store_equal_the_direct_ones(capsys, tmp_path):
    root = shutil.copytree(SHOP, tmp_path / "shop")  # not in git: no revision
    index = tmp_path / "index"
    code, out, err = run(capsys, "sync", "--project", str(root), "--index", str(index), "--env", "prod")
    assert code == 0 and out == ""
    assert err.startswith("prism-lineage: synced shop/prod as epoch 1: 7 statements (7 read, 0 unchanged")
    for argv in (("lineage", "analytics.orders"), ("lineage", "impact", "raw.orders"),
                 ("lineage", "raw.orders", "--direction", "down", "--depth", "10"),
                 ("lineage", "analytics.orders", "--as", "bob"), ("lineage", "impact", "raw.orders", "--as", "dave")):
        base = (*argv, "--project", str(root), "--env", "prod")
        code, direct, _ = run(capsys, *base, "-o", "json")
        if code:  # a refusal (dave may not see raw.orders): the very same
            assert run(capsys, *base, "--index", str(index), "-o", "json")[:2] == (code, direct)
            continue
        code, stored, err = run(capsys, *base, "--index", str(index), "-o", "json")
        assert code == 0 and err == ""
        answer = json.loads(stored)
        assert answer.pop("as_of") == {"epoch": 1, "revision": None, "synced_at": answer_time(index)}
        assert answer == json.loads(direct)
        _, direct_text, _ = run(capsys, *base)
        _, stored_text, _ = run(capsys, *base, "--index", str(index))
        assert stored_text.startswith(direct_text)
        assert stored_text[len(direct_text):] == f"\nas of the last sync (epoch 1, {answer_time(index)})\n"


def answer_time(index) -> str:
    from prism_lineage.control.store import read_meta

    return read_meta(index / "shop" / "prod" / "current.sqlite3")["synced_at"]


def test_refusals_from_the_store_are_the_direct_ones(capsys, tmp_path):
    index = tmp_path / "index"
    assert run(capsys, "sync", "--project", str(SHOP), "--index", str(index), "--env", "prod")[0] == 0
    for argv in (("lineage", "finance.board_report", "--as", "dave"), ("lineage", "nothing.here", "--as", "dave"),
                 ("lineage", "sandbox.experiments"), ("lineage", "orders", "--as", "bob"),
                 ("lineage", "analytics.orders", "--as", "mallory"), ("lineage", "analytics.orders", "--as", "bob-deploy"),
                 ("lineage", "analytics.orders", "--depth", "11"), ("lineage", "impact", "finance.board_report",
                                                                     "--as", "dave")):
        base = (*argv, "--project", str(SHOP), "--env", "prod", "-o", "json")
        direct = run(capsys, *base)
        stored = run(capsys, *base, "--index", str(index))
        assert stored == direct and direct[0] != 0


def test_before_the_first_sync_an_environment_is_not_computed(capsys, tmp_path):
    index = tmp_path / "index"
    code, out, err = run(capsys, "lineage", "analytics.orders", "--project", str(SHOP), "--env", "prod", "--index",
                         str(index), "-o", "json")
    answer = json.loads(out)
    assert code == 0 and answer["environment_status"] == "not computed" and answer["assets"] == []
    assert answer["marks"]["parsed"] == "Not recorded yet"
    assert "has not been synced" in err and "prism-lineage sync" in err
    code, _, _ = run(capsys, "lineage", "nothing.here", "--project", str(SHOP), "--env", "prod", "--index", str(index))
    assert code == 5  # names are still resolved, and refused alike


def test_lineage_sync_syncs_first(capsys, tmp_path):
    root = shutil.copytree(SHOP, tmp_path / "shop")
    index = tmp_path / "index"
    argv = ("lineage", "impact", "raw.orders", "--project", str(root), "--env", "prod", "--index", str(index),
            "-o", "json")
    assert json.loads(run(capsys, *argv)[1])["environment_status"] == "not computed"
    code, out, err = run(capsys, *argv, "--sync")
    assert code == 0 and json.loads(out)["count"] == 5 and "synced shop/prod" in err
    assert json.loads(run(capsys, *argv)[1])["as_of"]["epoch"] == 1
    # A later change is not seen until the next sync: the answer is as of the last one.
    edit_yaml(root, "views/big_orders.yaml" if (root / "views/big_orders.yaml").exists() else
              "views/daily_revenue.yaml", lambda d: d.update(reads=[]))
    assert json.loads(run(capsys, *argv)[1])["as_of"]["epoch"] == 1
    assert json.loads(run(capsys, *argv, "--sync")[1])["as_of"]["epoch"] == 2


def test_usage_errors(capsys, tmp_path):
    code, _, err = run(capsys, "lineage", "analytics.orders", "--project", str(SHOP), "--sync")
    assert code == 2 and "--sync and --wait need --index" in err
    code, _, err = run(capsys, "lineage", "analytics.orders", "--project", str(SHOP), "--index", str(tmp_path),
                       "--base", str(SHOP))
    assert code == 2 and "need --sync" in err


def test_a_parsed_edge_names_the_commit_it_was_read_at(capsys, tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(SHOP, repo / "shop")
    git_commit(repo)
    first = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    index = tmp_path / "index"
    code, _, err = run(capsys, "sync", "--project", str(repo / "shop"), "--index", str(index), "--env", "prod")
    assert code == 0 and f"at {first} as epoch 1" in err
    edit_yaml(repo / "shop", "views/daily_revenue.yaml", lambda d: d.update(sql=d["sql"] + "HAVING SUM(amount) > 0\n"))
    code, _, err = run(capsys, "sync", "--project", str(repo / "shop"), "--index", str(index), "--env", "prod")
    assert f"at {first}+uncommitted as epoch 2" in err
    git_commit(repo)
    second = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    code, _, err = run(capsys, "sync", "--project", str(repo / "shop"), "--index", str(index), "--env", "prod")
    assert f"at {second} as epoch 3" in err and "(0 read, " in err  # read at epoch 2, not again
    out = run(capsys, "lineage", "analytics.daily_revenue", "--project", str(repo / "shop"), "--env", "prod",
              "--index", str(index), "-o", "json", "--depth", "1")[1]
    answer = json.loads(out)
    assert answer["as_of"]["revision"] == second
    revisions = {(e["from_name"], e["to_name"], e["mark"]): e["revision"] for e in answer["edges"]}
    assert revisions[("analytics.orders", "analytics.daily_revenue", "parsed")] == f"{first}+uncommitted"
    assert revisions[("analytics.orders", "analytics.daily_revenue", "declared")] is None
    assert revisions[("analytics.daily_revenue", "finance.board_report", "parsed")] == first  # read at epoch 1
    text = run(capsys, "lineage", "analytics.daily_revenue", "--project", str(repo / "shop"), "--env", "prod",
               "--index", str(index), "--depth", "1")[1]
    assert f"read at {first}" in text


# --- one writer at a time ----------------------------------------------------------------------

def test_a_second_writer_fails_clearly_or_waits(capsys, tmp_path):
    index = tmp_path / "index"
    root = index / "shop" / "prod"
    with WriterLock(root):
        code, out, err = run(capsys, "sync", "--project", str(SHOP), "--index", str(index), "--env", "prod",
                             "-o", "json")
        assert code == 3 and "another sync writes the index" in err and "--wait" in err
        assert json.loads(out)["error"]["code"] == "index_busy"
    assert not (root / "alive").exists()  # refused before any work
    assert run(capsys, "sync", "--project", str(SHOP), "--index", str(index), "--env", "prod", "--wait")[0] == 0


def _racing(index, wait: bool, count: int = 2) -> list[int]:
    """``count`` sync processes of one environment started together; their exit codes."""
    argv = ["sync", "--project", str(SHOP), "--index", str(index), "--env", "prod", "--jobs", "1"]
    code = f"import sys\nfrom prism_lineage.cli import main\nsys.exit(main({argv + (['--wait'] if wait else [])!r}))"
    processes = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                 for _ in range(count)]
    return [p.wait(timeout=300) for p in processes]


@pytest.mark.parametrize("round_", range(3))
def test_two_processes_racing_never_share_an_epoch(tmp_path, round_):
    """Repeated: two syncs of one environment start together; with --wait both commit, each its
    own epoch, and the store is the newest one's."""
    index = tmp_path / "index"
    assert _racing(index, wait=True) == [0, 0]
    root = index / "shop" / "prod"
    assert EpochIndex(root).epochs() == [1, 2]
    from prism_lineage.control.store import read_meta

    assert read_meta(root / "current.sqlite3")["epoch"] == "2"
    codes = sorted(_racing(index, wait=False))  # without --wait: one commits, the other is refused, nothing lost
    assert codes in ([0, 0], [0, 3])
    assert EpochIndex(root).epochs() == list(range(1, 3 + codes.count(0)))
    assert read_meta(root / "current.sqlite3")["epoch"] == str(2 + codes.count(0))


def test_epoch_numbers_are_allocated_atomically_without_the_lock(tmp_path):
    from prism_lineage.index.epochs import reserve

    context = multiprocessing.get_context("fork")
    with context.Pool(4) as pool:
        taken = pool.starmap(reserve, [(tmp_path, 1)] * 40)
    assert sorted(taken) == list(range(1, 41))


def test_a_sync_that_finds_nothing_changed_reads_nothing(capsys, tmp_path, monkeypatch):
    from prism_lineage.control.sync import sync
    from prism_lineage.governance import loading

    root = shutil.copytree(SHOP, tmp_path / "shop")
    index = tmp_path / "index"
    first = sync(root, index, "prod")
    before = run(capsys, "lineage", "impact", "raw.orders", "--project", str(root), "--env", "prod", "--index",
                 str(index), "-o", "json")[1]

    def not_read(*args, **kwargs):
        raise AssertionError("the project was read")

    monkeypatch.setattr(loading, "load_project", not_read)
    again = sync(root, index, "prod")
    assert (again.epoch, again.read, again.unchanged, again.statements) == (2, 0, first.statements, first.statements)
    assert EpochIndex(index / "shop" / "prod").epochs() == [1, 2]
    after = json.loads(run(capsys, "lineage", "impact", "raw.orders", "--project", str(root), "--env", "prod",
                           "--index", str(index), "-o", "json")[1])
    assert after.pop("as_of")["epoch"] == 2
    expected = json.loads(before)
    expected.pop("as_of")
    assert after == expected
    # What the sync that found nothing changed loads: pyarrow to write the epoch, not the rollup,
    # the SQL reader, DuckDB or pandas (which ``pyarrow.array`` would import: index/arrow_rows.py).
    code = ("import sys\nfrom prism_lineage.control.sync import sync\n"
            f"assert sync({str(root)!r}, {str(index)!r}, 'prod').path == 'unchanged'\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'pandas', 'duckdb', 'sqlglot', 'pydantic', "
            "'networkx'}))\n")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "[]"
    # A declaration written again with the same text changes no declaration: still nothing is read.
    (root / "views" / "daily_revenue.yaml").write_text((root / "views" / "daily_revenue.yaml").read_text())
    assert sync(root, index, "prod").read == 0
    monkeypatch.undo()
    # A file added (or removed) is a change the store cannot work out: the project is read.
    (root / "views" / "notes.txt").write_text("not a declaration, but a file of the project")
    monkeypatch.setattr(loading, "load_project", not_read)
    with pytest.raises(AssertionError, match="the project was read"):
        sync(root, index, "prod")
