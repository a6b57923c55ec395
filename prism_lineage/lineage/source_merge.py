"""How one field's sources are merged and ordered before anyone renders them: the explain
answer (``explain/answer.py``) and the sync's read (``governance/sync_read.py``) both use this,
so a sync stores exactly the sources explain shows.  No pydantic here: the sync's workers
import this module and must stay light."""

from __future__ import annotations

from .kinds import RELATIONSHIP_ORDER, strongest, surest
from .paths import SEPARATOR, UNKNOWN_PART, covers, split, unsealed


def merged_in_order(sources: list) -> list:
    """``(relationship, column, (transformation, confidence, reason))`` triples: an unknown part
    of a column merged into the column, parts covered by a shorter path dropped, sorted by kind
    then column (in place when nothing was merged)."""
    # One look at the columns for both rare cases (merging an unknown part keeps a column's
    # path separator, so the second test gives the same after the first rewrite).
    unknown_part = with_path = False
    for _, column, _ in sources:
        if column.endswith(UNKNOWN_PART):
            unknown_part = True
        if SEPARATOR in column:
            with_path = True
    if unknown_part:
        sources = _unsealed(sources)
    if with_path:
        sources = _without_covered_paths(sources)
    if len(sources) > 1:
        sources.sort(key=_order)
    return sources


def _order(source: tuple) -> tuple:
    return RELATIONSHIP_ORDER[source[0]], source[1]


def _unsealed(sources: list) -> list:
    """A column reached both as itself and as an unknown part of it (a set operation pairing
    by position with unknown columns) is one source: the strongest transformation, the surest
    confidence with its reason."""
    merged: dict[tuple, tuple] = {}
    for relationship, column, found in sources:
        key = (relationship, unsealed(column))
        old = merged.get(key)
        if old is None:
            merged[key] = found
            continue
        confidence = surest(old[1], found[1])
        merged[key] = (strongest(old[0], found[0]), confidence, old[2] if confidence == old[1] else found[2])
    return [(relationship, column, found) for (relationship, column), found in merged.items()]


def _without_covered_paths(sources: list) -> list:
    """A column read whole (or at a shorter path) already covers its parts read elsewhere in
    the same field under the same kind: ``a`` covers ``a.x``, ``a.x`` covers ``a.x[0]``."""
    read: dict[tuple, list[str | None]] = {}
    for relationship, column, _ in sources:
        target, path = split(column)
        read.setdefault((relationship, target), []).append(path)
    kept = []
    for relationship, column, found in sources:
        target, path = split(column)
        if path is not None and any(other != path and covers(other, path) for other in read[(relationship, target)]):
            continue
        kept.append((relationship, column, found))
    return kept
