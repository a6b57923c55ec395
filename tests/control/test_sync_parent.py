"""The full sync's own work, made cheaper without changing what it stores: the large files'
documents come from the project's load (not parsed a second time), and what is kept is what
parsing the text again gives."""

from __future__ import annotations

import control_paths  # noqa: F401 - the governance tests' helpers on the path

import json
import sqlite3

from test_engine import edit, project, state

from prism_lineage.control import engine
from prism_lineage.control import sync as sync_module
from prism_lineage.control.paths import environment_root
from prism_lineage.control.store import STORE_FILE
from prism_lineage.control.sync import sync
from prism_lineage.governance import native


def _trees(index):
    with sqlite3.connect(environment_root(index, "t", "prod") / STORE_FILE) as connection:
        return connection.execute("SELECT path, text_digest, tree FROM document_trees ORDER BY path").fetchall()


def test_a_full_sync_keeps_the_large_files_documents_its_load_parsed(tmp_path, monkeypatch):
    # The engine's state written in this process, where the calls of ``_parsed`` can be counted
    # (a rebuilt store is otherwise written by a child: test_store_aside.py compares the two).
    monkeypatch.setattr(sync_module, "STORE_ASIDE", False)
    monkeypatch.setattr(engine, "TREE_BYTES", 1)  # every file counts as large
    monkeypatch.setattr(native, "LARGE_DOCUMENT_BYTES", 1)
    root = project(tmp_path / "project")
    # A view file holding a date: JSON cannot hold it, so no tree is kept for it (as before).
    (root / "views" / "dated.yaml").write_text("namespace: s\nname: dated\nsql: SELECT x FROM s.a\n"
                                                "reads: [s.a]\nannotations: {since: 2001-12-14}\n")
    parsed = []
    taken = engine._parsed
    monkeypatch.setattr(engine, "_parsed", lambda text: parsed.append(text) or taken(text))
    index = tmp_path / "index"
    sync(root, index, jobs=1)
    assert parsed == []  # every document came from the load
    trees = _trees(index)
    assert "views/dated.yaml" not in {path for path, _, _ in trees}
    assert {path for path, _, _ in trees} >= {"pipelines/p.yaml", "views/s_v1.yaml"}
    for path, _, tree in trees:  # what parsing the text again gives, byte for byte
        assert tree == json.dumps(taken((root / path).read_text(encoding="utf-8")), ensure_ascii=False)

    # Without the load's documents (a caller that passes none) the same rows are written.
    monkeypatch.setattr(native, "LARGE_DOCUMENT_BYTES", 1 << 40)
    again = tmp_path / "again"
    sync(root, again, jobs=1)
    assert parsed  # parsed here
    assert _trees(again) == trees

    # An edit then works from the kept tree, as it does when the sync parsed it itself.
    full = tmp_path / "full"
    edit(root, 4, "SELECT x FROM s.b")
    assert sync(root, index, jobs=1).path == "sql"
    sync(root, full, jobs=1, full=True)
    assert state(index) == state(full)


def test_a_file_changed_after_the_load_is_parsed_from_its_own_text(tmp_path, monkeypatch):
    """The engine keeps the tree of the text it stores: when that is not the text the load
    parsed, it parses its own (the load's document would belong to another text)."""
    monkeypatch.setattr(engine, "TREE_BYTES", 1)
    monkeypatch.setattr(native, "LARGE_DOCUMENT_BYTES", 1)
    root = project(tmp_path / "project")
    documents: dict = {}
    native.load_native(root, documents=documents)
    text, tree = documents["pipelines/p.yaml"]
    assert json.loads(tree) == engine._parsed(text)
    documents["pipelines/p.yaml"] = ("another text", json.dumps({"not": "its tree"}))
    from prism_lineage.control.fingerprint import fingerprint
    from prism_lineage.governance.loading import load_project

    index = tmp_path / "index"
    sync(root, index, jobs=1)
    project_, _ = load_project(root)
    lineage_root = environment_root(index, "t", "prod")
    before = _trees(index)
    with sqlite3.connect(lineage_root / STORE_FILE) as connection:
        connection.execute("DELETE FROM document_trees")
    from prism_lineage.index import EpochIndex

    lineage = EpochIndex(lineage_root).lineage("t", "prod")
    engine.write_engine_state(lineage_root / STORE_FILE, root, project_.environment("prod"), lineage,
                              fingerprint(root), documents)
    assert _trees(index) == before
