"""The explorer answer: the edges around an asset, with how each is known.

An asset, a direction (upstream, downstream or both) and a depth from 1 to 10 (2 when none is
chosen; outside is refused by name and never cut to fit).  The answer is cut at 100 assets and
says so with how many it holds, never with a total.  It lists every edge among the assets it
holds, one row per edge and mark — the list form, which holds every edge a picture may leave
out — with the legend of each mark's recording status.  Depth 1 is the one-hop answer a
record's Overview shows.
"""

from __future__ import annotations

from .access import LINEAGE_READ, Viewer
from .answers import AssetNode, ColumnEdge, EdgeRow, ExplorerAnswer, LegendEntry
from .asset_names import resolve_asset
from .errors import DepthOutOfRangeError
from .rollup import Asset, EnvironmentLineage, LineageEdge
from .statuses import (
    CUT_NOTE,
    FILE_SQL_NOTE,
    LINE_STYLE,
    NO_COLUMN_ANSWER_NOTE,
    NO_COLUMN_NOTE,
    NO_EDGE_NOTE,
    NOT_VISIBLE,
    PARSER_NOTE,
    EnvironmentStatus,
    Mark,
    MarkStatus,
    not_computed_notes,
    sql_not_read_note,
)
from .walks import Direction, walk

DEFAULT_DEPTH = 2
MIN_DEPTH = 1
MAX_DEPTH = 10
CUT_AT = 100


def check_depth(depth: int) -> int:
    if not MIN_DEPTH <= depth <= MAX_DEPTH:
        raise DepthOutOfRangeError(depth, MIN_DEPTH, MAX_DEPTH)
    return depth


def explore(lineage: EnvironmentLineage, viewer: Viewer, asset: str, direction: Direction | str = Direction.BOTH,
            depth: int = DEFAULT_DEPTH, *, cut_at: int = CUT_AT) -> ExplorerAnswer:
    """The explorer's answer for ``asset`` as ``viewer`` may see it."""
    viewer.require(LINEAGE_READ)
    direction = Direction(direction)
    check_depth(depth)
    lineage = lineage.for_viewer(viewer)  # never what the viewer's answer cannot depend on
    focus = resolve_asset(lineage, viewer, asset)
    marks = lineage.marks(viewer)
    legend = [LegendEntry(mark=m.value, line=LINE_STYLE[m], status=marks[m.value]) for m in Mark]
    if lineage.status is EnvironmentStatus.NOT_COMPUTED:
        return ExplorerAnswer(project=lineage.project, environment=lineage.environment,
                              environment_status=lineage.status.value, asset=focus.full_name,
                              direction=direction.value, depth=depth, marks=marks, legend=legend, cut=False, holds=0,
                              assets=[], edges=[], sql_not_read=0, notes=not_computed_notes(lineage.held_for_review))
    reached = walk(lineage, viewer, focus.id, direction, depth)
    ordered = sorted(reached.distances, key=lambda a: (reached.distances[a], lineage.assets[a].full_name))
    cut = len(ordered) > cut_at
    held = ordered[:cut_at]
    held_set = set(held)
    sees = lambda full_name: viewer.sees(lineage.environment, full_name)  # noqa: E731
    nodes = [_node(lineage.assets[a], reached.distances[a], a in reached.next_to_cut, sees) for a in held]
    edges = [_row(lineage, lineage.edges[i]) for i in _edges_among(lineage, held_set)]
    sql_not_read = sum(1 for n in nodes if n.sql_status is not None)
    # The file note only where a visible asset's SQL is kept in a file (as impact, item 11).
    file_sql = any(a.sql_status is not None and a.sql_status.value == FILE_STATUS and lineage.visible(viewer, a.id)
                   for a in lineage.assets.values())
    notes = _notes(edges, sql_not_read, marks, cut, cut_at, file_sql)
    return ExplorerAnswer(
        project=lineage.project, environment=lineage.environment, environment_status=lineage.status.value,
        asset=focus.full_name, direction=direction.value, depth=depth, marks=marks, legend=legend, cut=cut,
        holds=len(nodes), assets=nodes, edges=edges, sql_not_read=sql_not_read, notes=notes,
    )


def _edges_among(lineage: EnvironmentLineage, held: set[str]) -> list[int]:
    """Indices (in the rollup's order) of every edge whose both ends are held: read from the
    graph's adjacency, so an answer costs what it holds, not what the environment holds."""
    succ = lineage.graph.succ
    return sorted(key for source in held for target, keys in succ[source].items() if target in held for key in keys)


def one_hop(lineage: EnvironmentLineage, viewer: Viewer, asset: str) -> ExplorerAnswer:
    """What a record's Overview shows: both directions at depth one."""
    return explore(lineage, viewer, asset, Direction.BOTH, 1)


def _node(asset: Asset, distance: int, next_to_cut: bool, sees) -> AssetNode:
    status = asset.sql_status.value if asset.sql_status is not None else None
    return AssetNode(id=asset.id, name=asset.full_name, kind=asset.kind, owner=asset.owner, steward=asset.steward,
                     certified=asset.certified, sql_status=status, sql_read_from=asset.sql_read_from,
                     reads_at_least=status is not None, note=NOT_VISIBLE if next_to_cut else None,
                     notes=asset.visible_notes(sees), distance=distance)


def _row(lineage: EnvironmentLineage, edge: LineageEdge) -> EdgeRow:
    columns = None
    note = edge.note
    if edge.columns is not None:
        columns = [ColumnEdge(source=c.source, target=c.target, relationship=c.relationship,
                              transformation=c.transformation, confidence=c.confidence) for c in edge.columns]
        if not columns:
            note = NO_COLUMN_NOTE
    return EdgeRow(source=edge.source, target=edge.target, source_name=lineage.assets[edge.source].full_name,
                   target_name=lineage.assets[edge.target].full_name, mark=edge.mark.value,
                   line=LINE_STYLE[edge.mark], via=edge.via.value, file=edge.file, columns=columns, note=note,
                   revision=edge.revision, run_id=edge.run_id, seen_at=edge.seen_at)


FILE_STATUS = "Kept in a file, not read"  # statuses.SqlStatus.IN_FILE's words


def _notes(edges: list[EdgeRow], sql_not_read: int, marks: dict[str, str], cut: bool, cut_at: int,
           file_sql: bool = True) -> list[str]:
    notes = []
    if cut:
        notes.append(CUT_NOTE.format(limit=cut_at))
    if marks[Mark.PARSED.value] == MarkStatus.COULD_NOT_RUN.value:
        notes.append(PARSER_NOTE)
    if sql_not_read:
        notes.append(sql_not_read_note(sql_not_read))
    no_column = any(e.columns is not None and not e.columns for e in edges)
    if no_column:
        notes.append(NO_COLUMN_ANSWER_NOTE)
    if not edges:
        notes.append(NO_EDGE_NOTE)
    # Wherever it says that no column is traced, and in every answer that holds no edge (the
    # answer always names the parsed mark), it also says that SQL kept in a file is not read —
    # where the environment has SQL kept in a file that the viewer may see.
    if (no_column or not edges) and file_sql:
        notes.append(FILE_SQL_NOTE)
    return notes
