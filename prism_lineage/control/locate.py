"""Finding an environment's store in an index from the project directory, without reading it.

The last sync of a project directory recorded its project name, environments and default in
``INDEX/.projects/`` (``sync.write_pointer``): that is enough to find the store.  A directory
never synced into the index (or an environment the last sync did not know) falls back to reading
the project's declarations — the environment is then not computed, and says so.
"""

from __future__ import annotations

from pathlib import Path

from ..governance.errors import UnknownEnvironmentError
from .store import STORE_FILE
from .paths import environment_root, read_pointer


class Located:
    """Where an environment's store is (``store`` None: never synced into this index)."""

    __slots__ = ("project", "environment", "root", "store", "project_dir")

    def __init__(self, project: str, environment: str, root: Path, store: Path | None, project_dir: str):
        self.project, self.environment, self.root, self.store = project, environment, root, store
        self.project_dir = project_dir


def locate(index: str | Path, project_dir: str | Path, environment: str | None) -> Located:
    pointer = read_pointer(index, project_dir)
    if pointer is not None:
        name = pointer["project"]
        chosen = _environment(name, pointer.get("environments") or [], pointer.get("default_environment"),
                              environment)
        if chosen is not None:
            root = environment_root(index, name, chosen)
            store = root / STORE_FILE
            if store.is_file():
                return Located(name, chosen, root, store, str(project_dir))
    from ..governance.loading import load_project
    from ..governance.rollup import environment_of

    project, _ = load_project(project_dir)
    chosen = environment_of(project, environment).name
    root = environment_root(index, project.name, chosen)
    store = root / STORE_FILE
    return Located(project.name, chosen, root, store if store.is_file() else None, str(project_dir))


def _environment(project: str, names: list[str], default: str | None, wanted: str | None) -> str | None:
    """The environment named (or the only one, or the default) as the last sync knew the
    project; None when it did not know the one named (the project is then read)."""
    if wanted is not None:
        return wanted if wanted in names else None
    if len(names) == 1:
        return names[0]
    if default is not None and default in names:
        return default
    # The message of governance.rollup.environment_of, word for word (a test checks it).
    raise UnknownEnvironmentError(f"project '{project}' has several environments and no default: "
                                  "name one with --env")


def not_computed_answer(found: Located, credential: str | None, mode: str, asset: str, direction: str, depth: int,
                        search: str | None):
    """The answer for an environment never synced into the index: not computed, in words —
    read from the project's declarations, so names are resolved and refused as always."""
    from dataclasses import replace

    from ..governance.access import LINEAGE_READ, viewer_for
    from ..governance.explorer import explore
    from ..governance.impact import impact
    from ..governance.loading import load_project
    from ..governance.rollup import sync
    from ..governance.statuses import ParserState

    project, access = load_project(found.project_dir)
    viewer = viewer_for(access, credential)
    held = sync(project, found.environment, held_for_review=True)  # reads nothing
    lineage = replace(held, held_for_review=False, parser=ParserState.NOT_RUN)
    if mode == "choose":
        viewer.require(LINEAGE_READ)
        return (project.name, found.environment, sorted(
            (a.full_name, a.kind) for a in lineage.assets.values()
            if viewer.sees(found.environment, a.full_name) and (search or "").lower() in a.full_name.lower()))
    if mode == "impact":
        return impact(lineage, viewer, asset)
    return explore(lineage, viewer, asset, direction, depth)
