"""Finding the asset a request names, among the assets the credential may see.

A request names an asset by its full name (``namespace.name``) or, where only one visible asset
answers to it, by its short name (its name, or another name it answers to, such as a dbt
model's).  Only visible assets are considered, so a hidden asset, a nonexistent one and one of
another environment are refused alike, and a short name is never called ambiguous because of
an asset the credential may not see.
"""

from __future__ import annotations

from .access import Viewer
from .errors import AmbiguousAssetError, AssetNotFoundError
from .rollup import Asset, EnvironmentLineage


def resolve_asset(lineage: EnvironmentLineage, viewer: Viewer, name: str) -> Asset:
    exact = lineage.by_name.get(name)
    if exact is not None and lineage.visible(viewer, exact):
        return lineage.assets[exact]
    matches = sorted(
        (a for a in lineage.assets.values()
         if (a.name == name or name in a.aliases) and viewer.sees(lineage.environment, a.full_name)),
        key=lambda a: a.full_name,
    )
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise AmbiguousAssetError(name, [a.full_name for a in matches])
    raise AssetNotFoundError(name, lineage.environment)
