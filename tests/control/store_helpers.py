"""A store built from any rollup, and answers from it checked against the in-memory ones."""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path

from prism_lineage.control.reading import StoreReader
from prism_lineage.control.store import StoreWriter
from prism_lineage.control.sync import lineage_meta
from prism_lineage.control.viewers import StoredViewer, compile_viewer
from prism_lineage.governance import explorer as explorer_module
from prism_lineage.governance import impact as impact_module
from prism_lineage.governance.text import render_explorer, render_impact

_COUNTER = itertools.count()


def store_of(lineage, root: Path) -> StoreReader:
    """``lineage`` written as a store in ``root`` (a new directory) and opened."""
    StoreWriter(root).build(lineage, lineage_meta(lineage, epoch=1), {})
    return StoreReader(root)


class StoreBacked:
    """``explore``/``impact`` with the signatures of ``governance.explorer``/``impact`` that
    answer from a store of the lineage asked about, and check on every call that the store's
    answer (JSON and text, or the refusal) is byte-identical to the in-memory one."""

    def __init__(self, directory: Path | None = None):
        self.directory = Path(directory or tempfile.mkdtemp(prefix="store-backed-"))
        self.readers: dict[int, tuple[object, StoreReader]] = {}
        self.calls = 0

    def reader(self, lineage) -> StoreReader:
        """The store of ``lineage`` with the scopes worked out so far (a sync stores every
        credential's; here each viewer's is worked out as it asks, before the store is built)."""
        found = self.readers.get(id(lineage))
        scopes = frozenset(lineage.scoped)
        if found is None or found[0] is not lineage or found[2] != scopes:
            if found is not None:
                found[1].close()
            found = (lineage, store_of(lineage, self.directory / f"s{next(_COUNTER)}"), scopes)
            self.readers[id(lineage)] = found
        return found[1]

    def close(self) -> None:
        for _, reader, _ in self.readers.values():
            reader.close()

    def explore(self, lineage, viewer, asset, direction="both", depth=explorer_module.DEFAULT_DEPTH, *,
                cut_at=explorer_module.CUT_AT):
        direction = str(getattr(direction, "value", direction))
        return self._both(lambda: explorer_module.explore(lineage, viewer, asset, direction, depth, cut_at=cut_at),
                          lambda stored: self.reader(lineage).explore(stored, asset, direction, depth, cut_at=cut_at),
                          lineage, viewer, render_explorer)

    def impact(self, lineage, viewer, asset):
        return self._both(lambda: impact_module.impact(lineage, viewer, asset),
                          lambda stored: self.reader(lineage).impact(stored, asset), lineage, viewer, render_impact)

    def _both(self, direct, from_store, lineage, viewer, render):
        self.calls += 1
        stored = StoredViewer(compile_viewer(viewer, lineage.environment))
        try:
            lineage.for_viewer(viewer)  # the viewer's scope worked out (as a sync does for every credential)
        except Exception:  # noqa: BLE001 - refused below, alike
            pass
        try:
            expected = direct()
        except Exception as error:  # noqa: BLE001 - the store must refuse alike
            try:
                from_store(stored)
            except Exception as refused:  # noqa: BLE001
                assert (type(refused), str(refused)) == (type(error), str(error))
                raise refused from None
            raise AssertionError(f"the store answered where the rollup refused: {error}") from None
        answer = from_store(stored)
        assert answer.to_json() == expected.to_json()
        assert render(answer) == render(expected)
        return expected
