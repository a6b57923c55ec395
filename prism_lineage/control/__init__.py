"""The control plane: sync an environment into its index once, answer from it in milliseconds.

* ``sync.py`` — ``prism-lineage sync``: the only writer (one epoch per sync, under the
  environment's lock, ``locking.py``), then the current store updated from the epoch's delta;
* ``store.py`` — the current store (SQLite): integer ids, adjacency indexed both ways, edges
  with their column detail, assets, who may see what (``viewers.py``);
* ``reading.py`` — ``lineage`` and ``lineage impact`` as a few indexed queries, visibility in
  the walk, answers byte-identical to the in-memory ones (``answers.py``, without pydantic);
* ``locate.py`` — finding a project's store in an index without reading the project.

specs/control-plane.md holds the rules.  Nothing here is imported by ``import prism_lineage``.
"""

from __future__ import annotations

from importlib import import_module

# name -> (module, attribute): ``sync_environment`` is ``sync.sync`` (the submodule ``sync`` would
# shadow a function of the same name here).
_LAZY = {"sync_environment": (".sync", "sync"), "SyncSummary": (".sync", "SyncSummary"),
         "StoreReader": (".reading", "StoreReader"), "open_store": (".reading", "open_store")}
__all__ = sorted(_LAZY)


def __getattr__(name: str):
    found = _LAZY.get(name)
    if found is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(found[0], __name__), found[1])
