"""A full sync's early workers parse the project's declaration files while they wait for the
reading pass (``reading_pass.EarlyPool.parse_files``, ``native.read_native``'s ``parse``): the
project, the access policy, the large files' documents and every refusal must be exactly what the
loader gives when it parses every file itself — in the same order, file by file."""

from __future__ import annotations

import control_paths  # noqa: F401 - the governance tests' helpers on the path

import os
import sys

import pytest
from gov_helpers import ROOT

from prism_lineage.control.reading_pass import EarlyPool
from prism_lineage.governance import native
from prism_lineage.governance.errors import ProjectError
from prism_lineage.governance.loading import load_project
from prism_lineage.governance.native import load_native

sys.path.insert(0, str(ROOT))
from benchmarks.governance_bench import generate, write_native  # noqa: E402


@pytest.fixture()
def pool():
    early = EarlyPool(2)
    yield early
    early.close()


def _bench(tmp_path, assets=400):
    root = tmp_path / "project"
    write_native(generate(assets, 7), root)
    return root


def _loaded(root, **kwargs):
    documents: dict = {}
    project, access = load_project(root, documents=documents, **kwargs)
    return project, access, documents


def test_workers_parse_what_the_loader_parses(tmp_path, pool):
    root = _bench(tmp_path)
    itself = _loaded(root)
    assert _loaded(root, parse=pool.parse_files) == itself


def test_large_documents_travel_with_their_text_and_json(tmp_path, monkeypatch):
    # Small "large" files, so that texts and JSON documents travel back too; set before the
    # workers fork (they read the module they inherit).
    monkeypatch.setattr(native, "LARGE_DOCUMENT_BYTES", 200)
    root = _bench(tmp_path, 120)
    early = EarlyPool(2)
    try:
        itself = _loaded(root)
        ahead = _loaded(root, parse=early.parse_files)
    finally:
        early.close()
    assert ahead == itself and len(itself[2]) > 50
    assert all(text is not None and json_text is not None for text, json_text in ahead[2].values())


def _broken(tmp_path):
    root = _bench(tmp_path, 200)
    views = sorted((root / "views").rglob("*.yaml"))
    tables = sorted((root / "tables").rglob("*.yaml"))
    views[3].write_text("name: a\nname: b\n")  # a key given twice
    views[7].write_text("name: [unclosed\n")  # not YAML
    tables[5].write_text("- a list\n")  # not a mapping
    outside = tmp_path / "outside.yaml"
    outside.write_text("name: secret\n")
    tables[9].unlink()
    os.symlink(outside, tables[9])  # leads outside the project
    return root


def test_refusals_are_the_loaders_own_in_path_order(tmp_path, pool):
    root = _broken(tmp_path)
    with pytest.raises(ProjectError) as itself:
        load_project(root)
    with pytest.raises(ProjectError) as ahead:
        load_project(root, parse=pool.parse_files)
    assert ahead.value.message == itself.value.message and "tables/" in itself.value.message
    lenient = load_native(root, strict=False)
    lenient_ahead = load_native(root, strict=False, parse=pool.parse_files)
    assert lenient_ahead == lenient and len(lenient[2]) == 4


def test_files_whose_chunk_is_lost_are_read_by_the_loader(tmp_path):
    root = _bench(tmp_path, 200)
    itself = _loaded(root)

    def every_other(where, relatives):  # a parse that hands back only some files
        for i, relative in enumerate(relatives):
            yield native.parsed_elsewhere(where, relative) if i % 2 else None

    assert _loaded(root, parse=every_other) == itself
    dead = EarlyPool(2)
    try:
        for process in list(dead.pool._executor._processes.values()):
            process.kill()  # the workers died: every chunk is lost
        assert _loaded(root, parse=dead.parse_files) == itself
    finally:
        dead.close()


def test_files_are_handed_out_in_chunks_of_about_the_same_size(tmp_path):
    """The workers get chunks of about equal bytes, in the loader's order: a large file (a
    pipeline of thousands of assets) is a chunk of its own, not the tail of a chunk of small
    ones that one worker parses alone while the loader waits."""
    from prism_lineage.control.reading_pass import _chunks_by_size

    names = [f"tables/t{i:03d}.yaml" for i in range(60)] + ["pipelines/big.yaml"] + ["views/v.yaml", "missing.yaml"]
    (tmp_path / "tables").mkdir()
    (tmp_path / "pipelines").mkdir()
    (tmp_path / "views").mkdir()
    for name in names[:-1]:
        (tmp_path / name).write_text("x" * (6000 if "big" in name else 100))
    chunks = _chunks_by_size(tmp_path, names, 4)
    assert [n for chunk in chunks for n in chunk] == names  # every file once, in order
    assert ["pipelines/big.yaml"] in chunks
    small = [c for c in chunks if "pipelines/big.yaml" not in c]
    assert all(sum(100 for n in c if n.startswith("tables/")) <= 3000 for c in small)
    assert len(chunks) <= 2 * 4 + 1
