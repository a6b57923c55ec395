"""The API's answers: the very bytes ``prism-lineage lineage … --index DIR -o json`` prints.

Every answer is read from the environment's current store through the control plane's read
path (``control/reading.py``: visibility applied inside the walk), exactly as the CLI reads it
with ``--index``: the same reader, the same refusal codes and messages, the same JSON text
(``as_of`` last).  An environment never synced into the index is *not computed* and says so,
as the CLI does (``control/locate.py``).  tests/server/test_api.py compares every answer of
the example projects, for every credential, with the CLI's output byte for byte.

Each function returns a :class:`Reply` (HTTP status and body); nothing here knows about HTTP
beyond choosing the status of a refusal.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import AccessRefusedError, InputError, PrismError, ResolutionError, UsageError

# Accepted as the CLI accepts them; the answer names the direction in full.
DIRECTIONS = {"up": "upstream", "down": "downstream", "both": "both", "upstream": "upstream",
              "downstream": "downstream"}
DEFAULT_DEPTH = 2


@dataclass(frozen=True)
class Reply:
    status: int
    body: str  # JSON text, ending with a newline as the CLI's does

    @property
    def refused(self) -> bool:
        return self.status >= 400


@dataclass(frozen=True)
class Located:
    """The environment an explorer serves: where its store is in the index, and the project
    directory when the server was given one (``None``: the index alone)."""

    index: Path
    project: str
    environment: str
    root: Path
    project_dir: str | None

    @property
    def store(self) -> Path | None:
        from ..control.store import STORE_FILE

        path = self.root / STORE_FILE
        return path if path.is_file() else None


def locate(index: str | Path, project_dir: str | None, environment: str | None) -> Located:
    """The environment to serve: found from the project directory as ``lineage --index`` finds
    it, or — with no project directory — the one project the index holds."""
    if project_dir is not None:
        from ..control.locate import locate as locate_project

        found = locate_project(index, project_dir, environment)
        return Located(Path(index), found.project, found.environment, found.root, project_dir)
    return _only_project(Path(index), environment)


def _only_project(index: Path, environment: str | None) -> Located:
    from ..control.paths import POINTERS
    from ..control.store import STORE_FILE
    from ..governance.errors import UnknownEnvironmentError

    if not index.is_dir():
        raise InputError(f"index directory not found: {index}")
    stores: dict[str, list[str]] = {}
    for path in sorted(index.glob(f"*/*/{STORE_FILE}")):
        project, env = path.parent.parent.name, path.parent.name
        if not project.startswith("."):
            stores.setdefault(project, []).append(env)
    if not stores:
        raise InputError(f"the index {index} holds no synced environment: run prism-lineage sync --project DIR "
                         f"--index {index} first, or serve with --project DIR")
    if len(stores) > 1:
        raise UsageError(f"the index {index} holds several projects ({', '.join(sorted(stores))}): "
                         "name the project directory with --project")
    project, names = next(iter(stores.items()))
    if environment is not None:
        if environment not in names:
            raise UnknownEnvironmentError(f"environment '{environment}' of project '{project}' has not been synced "
                                          f"into {index}")
        chosen = environment
    elif len(names) == 1:
        chosen = names[0]
    else:
        default = None
        for pointer in sorted((index / POINTERS).glob("*.json")):
            try:
                document = json.loads(pointer.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(document, dict) and document.get("project") == project:
                default = document.get("default_environment")
        if default not in names:
            raise UnknownEnvironmentError(f"project '{project}' has several environments synced into {index} "
                                          f"and no default: name one with --env ({', '.join(names)})")
        chosen = default
    from ..control.paths import environment_root

    return Located(index, project, chosen, environment_root(index, project, chosen), None)


# --- the answers -------------------------------------------------------------------------------

def lineage(where: Located, credential: str | None, asset: str | None, direction: str | None,
            depth: str | int | None) -> Reply:
    """``/api/v1/lineage``: ``prism-lineage lineage ASSET --direction D --depth N -o json``."""
    try:
        if not asset:
            raise UsageError("no asset named: choose one (GET /api/v1/assets?q=TEXT lists those you may see)")
        return _read(where, credential, "explore", asset, _direction(direction), _depth(depth), None)
    except PrismError as error:
        return refusal(error)


def impact(where: Located, credential: str | None, asset: str | None) -> Reply:
    """``/api/v1/impact``: ``prism-lineage lineage impact ASSET -o json``."""
    try:
        if not asset:
            raise UsageError("no asset named: choose one (GET /api/v1/assets?q=TEXT lists those you may see)")
        return _read(where, credential, "impact", asset, "both", DEFAULT_DEPTH, None)
    except PrismError as error:
        return refusal(error)


def assets(where: Located, credential: str | None, search: str | None) -> Reply:
    """``/api/v1/assets``: ``prism-lineage lineage --search TEXT -o json`` — the tables and
    views the credential may see whose name holds the text."""
    try:
        return _read(where, credential, "choose", "", "both", DEFAULT_DEPTH, search or "")
    except PrismError as error:
        return refusal(error)


def _read(where: Located, credential: str | None, mode: str, asset: str, direction: str, depth: int,
          search: str | None) -> Reply:
    """As ``cli/lineage.py``'s ``_answer_from_store`` reads and renders it."""
    import sqlite3

    from ..control.reading import StoreReader
    from ..control.store import StoreError

    try:
        return _read_store(where, credential, mode, asset, direction, depth, search, StoreReader)
    except (StoreError, sqlite3.Error) as error:
        # The CLI stops on these as an internal error; a server says what it could not read.
        raise InputError(f"the store of {where.project}/{where.environment} cannot be read: "
                         f"{str(error).splitlines()[0]}") from None


def _read_store(where, credential, mode, asset, direction, depth, search, StoreReader) -> Reply:
    if where.store is None:
        if where.project_dir is None:
            raise InputError(f"the store of {where.project}/{where.environment} is missing from {where.index}: "
                             "run prism-lineage sync")
        from ..control.locate import Located as Found
        from ..control.locate import not_computed_answer

        found = Found(where.project, where.environment, where.root, None, where.project_dir)
        answer = not_computed_answer(found, credential, mode, asset, direction, depth, search)
        return Reply(200, _choice_json(*answer) if mode == "choose" else answer.to_json() + "\n")
    with StoreReader(where.root) as reader:
        viewer = reader.viewer(credential)
        if mode == "choose":
            return Reply(200, _choice_json(reader.project, reader.environment, reader.choose(viewer, search)))
        if mode == "impact":
            answer = reader.impact(viewer, asset)
        else:
            answer = reader.explore(viewer, asset, direction, depth)
        # cli/lineage.py's _render, word for word: the answer, then which sync it is as of.
        return Reply(200, json.dumps({**answer.to_dict(), "as_of": reader.as_of()}, indent=2,
                                     ensure_ascii=False) + "\n")


def _choice_json(project: str, environment: str, found: list[tuple[str, str]]) -> str:
    # cli/lineage.py's _render_choice with -o json, word for word.
    return json.dumps({"project": project, "environment": environment,
                       "choose": [{"name": name, "kind": kind} for name, kind in found]}, indent=2) + "\n"


def _direction(value: str | None) -> str:
    if value is None or value == "":
        return "both"
    found = DIRECTIONS.get(value)
    if found is None:
        raise UsageError(f"direction '{value}' is not one of upstream, downstream, both")
    return found


def _depth(value: str | int | None) -> int:
    if value is None or value == "":
        return DEFAULT_DEPTH
    if isinstance(value, int):
        return value
    text = value.strip()
    if not text.lstrip("+-").isdigit() or len(text) > 6:
        raise UsageError(f"depth '{value}' is not a whole number from 1 to 10")
    return int(text)  # the reader refuses one outside 1 to 10 by name (depth_out_of_range)


# --- refusals ----------------------------------------------------------------------------------

def refusal(error: PrismError) -> Reply:
    """The refusal the CLI prints with ``-o json``, with the HTTP status that says its kind."""
    from ..cli.lineage import refusal_code
    from ..control.answers import Refusal, RefusalAnswer

    code = refusal_code(error)
    body = RefusalAnswer(error=Refusal(code=code, message=str(error))).to_json() + "\n"
    return Reply(http_status(error, code), body)


def http_status(error: PrismError, code: str) -> int:
    if code == "unknown_credential":
        return 401
    if isinstance(error, AccessRefusedError):
        return 403
    if code == "asset_not_found":
        return 404
    if isinstance(error, (UsageError, ResolutionError)):
        return 400
    if isinstance(error, InputError):
        return 503  # the store cannot answer (not synced for this credential, unreadable): try again later
    return 500


def refusal_json(code: str, message: str) -> str:
    """A refusal of the server's own (login required …), shaped as every other refusal."""
    from ..control.answers import Refusal, RefusalAnswer

    return RefusalAnswer(error=Refusal(code=code, message=message)).to_json() + "\n"


def review(where: Located, credential: str | None, base_rev: str | None, state: str | None) -> Reply:
    """``/api/v1/review``: ``prism-lineage review --base-rev REV --project DIR -o json`` — the
    change the checkout brings over ``base_rev``: what waits for approval, and the Impact of
    each held table as the credential may see it."""
    try:
        if where.project_dir is None:
            raise UsageError("a change set is read from the project's checkout: serve with --project DIR")
        if not base_rev:
            raise UsageError("no base named: give base=REV, the git revision the environment stands at")
        import tempfile

        from ..cli.lineage import checkout
        from ..governance.access import viewer_for
        from ..governance.loading import load_project
        from ..governance.review import CHANGE_SET_STATES
        from ..governance.review import review as review_change

        state = state or "proposed"
        if state not in CHANGE_SET_STATES:
            raise UsageError(f"state '{state}' is not one of {', '.join(CHANGE_SET_STATES)}")
        # As cli/review.py's run: who may see what is read at the base.
        # cli/lineage.py's checkout verifies the revision names a commit and passes only its id to git.
        with tempfile.TemporaryDirectory(prefix="prism-review-") as scratch:
            base = checkout(where.project_dir, base_rev, Path(scratch))
            _, access = load_project(base)
            answer = review_change(base, where.project_dir, viewer_for(access, credential), where.environment,
                                   state)
        return Reply(200, answer.to_json() + "\n")
    except PrismError as error:
        return refusal(error)



# --- observations in: POST /api/v1/lineage ---------------------------------------------------------

LINEAGE_WRITE = "lineage.write"


class Observations:
    """``POST /api/v1/lineage``: one OpenLineage event, recorded as observed edges of the
    environment (``openlineage.ingest.Ingestor.post_lineage``, the path Marquez takes, so
    OpenLineage clients can point at this server).  Recording writes, so the credential must
    hold ``lineage.write`` (the project owner holds every permission)."""

    def __init__(self, mapping: str | None = None):
        import threading

        self.mapping = mapping
        self._lock = threading.Lock()
        self._ingestor = None
        self._for: tuple | None = None

    def close(self) -> None:
        with self._lock:
            if self._ingestor is not None:
                self._ingestor.close()
                self._ingestor = None

    def post(self, where: Located, credential: str | None, body: bytes) -> Reply:
        try:
            return self._post(where, credential, body)
        except PrismError as error:
            return refusal(error)

    def _post(self, where: Located, credential: str | None, body: bytes) -> Reply:
        from ..control.reading import StoreReader

        if where.store is None:
            raise InputError(f"{where.project}/{where.environment} has not been synced yet: its assets are not known, "
                             "so no event can be recorded")
        with StoreReader(where.root) as reader:
            reader.viewer(credential).require(LINEAGE_WRITE)
            epoch = reader.meta.get("epoch")
            assets = dict(reader.connection.execute("SELECT full_name, asset_id FROM assets"))
        with self._lock:
            key = (str(where.root), epoch)
            if self._ingestor is None or self._for != key:  # the assets change with each sync
                if self._ingestor is not None:
                    self._ingestor.close()
                from ..openlineage.ingest import Ingestor
                from ..openlineage.naming import load_mapping

                self._ingestor = Ingestor(where.root, assets, rules=load_mapping(self.mapping, where.environment))
                self._for = key
            status, answer = self._ingestor.post_lineage(body)
        return Reply(status, json.dumps(answer, indent=2) + "\n")
