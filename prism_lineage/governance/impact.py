"""Impact: every asset downstream of one, at any depth, by kind, with who answers for it.

The walk runs over visible assets only.  When part of what depends on the asset is not visible
to the credential, or an asset the credential sees has SQL that was not read (what it reads is
not known, so it may read the asset too), the answer says ``at least`` and counts only what it
holds.  Impact only
reads; it decides nothing.
"""

from __future__ import annotations

from .access import LINEAGE_READ, Viewer
from .answers import ImpactAnswer, ImpactAsset
from .asset_names import resolve_asset
from .rollup import EnvironmentLineage
from .statuses import PARSER_NOTE, EnvironmentStatus, Mark, MarkStatus, impact_unread_notes, not_computed_notes
from .walks import Direction, walk

KIND_ORDER = {"table": 0, "view": 1}
AT_LEAST_NOTE = "Part of what depends on this asset is not visible to you: there are at least this many."


def impact(lineage: EnvironmentLineage, viewer: Viewer, asset: str) -> ImpactAnswer:
    viewer.require(LINEAGE_READ)
    lineage = lineage.for_viewer(viewer)  # never what the viewer's answer cannot depend on
    focus = resolve_asset(lineage, viewer, asset)
    marks = lineage.marks(viewer)
    if lineage.status is EnvironmentStatus.NOT_COMPUTED:
        return ImpactAnswer(project=lineage.project, environment=lineage.environment,
                            environment_status=lineage.status.value, asset=focus.full_name, marks=marks,
                            at_least=False, count=0, by_kind={}, assets=[], sql_not_read=0,
                            notes=not_computed_notes(lineage.held_for_review))
    reached = walk(lineage, viewer, focus.id, Direction.DOWNSTREAM, None)
    found = [lineage.assets[a] for a in reached.distances if a != focus.id]
    found.sort(key=lambda a: (KIND_ORDER.get(a.kind, 2), a.full_name))
    assets = [ImpactAsset(id=a.id, name=a.full_name, kind=a.kind, owner=a.owner, steward=a.steward,
                          certified=a.certified, sql_status=a.sql_status.value if a.sql_status else None)
              for a in found]
    by_kind: dict[str, int] = {}
    for a in assets:
        by_kind[a.kind] = by_kind.get(a.kind, 0) + 1
    # Every visible asset whose SQL was not read (in the viewer's reading): one not listed may
    # read this asset too, so the list is a floor (field trial 03).
    unread = [(a.id, a.sql_status.value) for a in lineage.assets.values()
              if a.sql_status is not None and lineage.visible(viewer, a.id)]
    elsewhere = [status for identifier, status in unread if identifier not in reached.distances]
    at_least = bool(reached.next_to_cut) or bool(elsewhere)
    sql_not_read = sum(1 for a in assets if a.sql_status is not None)
    notes = []
    if reached.next_to_cut:
        notes.append(AT_LEAST_NOTE)
    if marks[Mark.PARSED.value] == MarkStatus.COULD_NOT_RUN.value:
        notes.append(PARSER_NOTE)
    if sql_not_read:
        notes.append(f"{sql_not_read} of the assets listed have SQL that was not read.")
    notes.extend(impact_unread_notes(elsewhere, [status for _, status in unread]))
    return ImpactAnswer(project=lineage.project, environment=lineage.environment,
                        environment_status=lineage.status.value, asset=focus.full_name, marks=marks,
                        at_least=at_least, count=len(assets), by_kind=by_kind, assets=assets,
                        sql_not_read=sql_not_read, notes=notes)
