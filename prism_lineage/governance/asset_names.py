"""Finding the asset a request names, among the assets the credential may see.

A request names an asset by its full name (``namespace.name``) or, where only one visible asset
answers to it, by its short name (its name, or another name it answers to, such as a dbt
model's).  Names hold with a precedence (``Asset.alias_ranks``, dbt's ``--select``: a model's
name over a seed's or a snapshot's over a source's over a relation's own name): the visible
assets answering with the strongest rank are the candidates, and only two of them make the
name ambiguous.  Only visible assets are considered, so a hidden asset, a nonexistent one and
one of another environment are refused alike, and a short name is never called ambiguous (nor
taken) because of an asset the credential may not see.
"""

from __future__ import annotations

from .access import Viewer
from .errors import AmbiguousAssetError, AssetNotFoundError
from .rollup import Asset, EnvironmentLineage


def resolve_asset(lineage: EnvironmentLineage, viewer: Viewer, name: str) -> Asset:
    exact = lineage.by_name.get(name)
    if exact is not None and lineage.visible(viewer, exact):
        return lineage.assets[exact]
    ranked = [(rank, a) for a in lineage.assets.values()
              if (rank := name_rank(a, name)) is not None and viewer.sees(lineage.environment, a.full_name)]
    best = min((rank for rank, _ in ranked), default=None)
    matches = sorted((a for rank, a in ranked if rank == best), key=lambda a: a.full_name)
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise AmbiguousAssetError(name, [a.full_name for a in matches])
    raise AssetNotFoundError(name, lineage.environment)


def name_rank(asset: Asset, name: str) -> int | None:
    """How strongly ``asset`` holds the short name ``name`` (lower is stronger; None: not at all)."""
    ranks = [asset.alias_ranks[i] if i < len(asset.alias_ranks) else 0
             for i, alias in enumerate(asset.aliases) if alias == name]
    if ranks:
        return min(ranks)
    if asset.name == name:
        return max(asset.alias_ranks, default=0)
    return None
