"""What governance refuses, each with the code a JSON refusal carries and its exit code.

A refusal names what was refused.  An asset that is hidden from the credential, one that does
not exist and one of another environment are refused with the very same message: nothing in
it depends on which of the three it is.
"""

from __future__ import annotations

from ..errors import AccessRefusedError, InputError, ResolutionError, UsageError


class ProjectError(InputError):
    """A project's files cannot be read as declarations (exit code 3)."""

    code = "invalid_project"


class AssetNotFoundError(ResolutionError):
    """No asset of that name that the credential may see in the environment (exit code 5)."""

    code = "asset_not_found"

    def __init__(self, name: str, environment: str):
        super().__init__(f"no table or view '{name}' that you may see in environment '{environment}'")
        self.name = name
        self.environment = environment


class AmbiguousAssetError(ResolutionError):
    """A short name that several visible assets answer to (exit code 5)."""

    code = "ambiguous_asset"

    def __init__(self, name: str, candidates: list[str]):
        super().__init__(f"asset name '{name}' is ambiguous: it could be {' or '.join(candidates)}")
        self.name = name
        self.candidates = candidates


class DepthOutOfRangeError(UsageError):
    """A depth outside 1 to 10: refused by name, never cut to fit (exit code 2)."""

    code = "depth_out_of_range"

    def __init__(self, depth: int, lowest: int, highest: int):
        super().__init__(f"depth {depth} is outside the allowed range {lowest} to {highest}")
        self.depth = depth


class UnknownEnvironmentError(UsageError):
    """An environment the project does not have, or none named where one must be (exit code 2)."""

    code = "unknown_environment"


# The refusals of access live here, not in access.py, so that the store's read path raises the
# very same classes without importing pydantic (access.py re-exports them).
class UnknownCredentialError(AccessRefusedError):
    code = "unknown_credential"

    def __init__(self, name: str):
        super().__init__(f"credential '{name}' is not known to this project")
        self.name = name


class PermissionRefusedError(AccessRefusedError):
    code = "permission_refused"

    def __init__(self, credential: str, permission: str):
        super().__init__(f"credential '{credential}' lacks the permission {permission}")
        self.credential = credential
        self.permission = permission


class ScopeNotComputedError(InputError):
    """A lineage read back from a store holds no reading for the credential's visibility scope
    (exit code 3): answering from the owner's reading could tell what the credential may not
    see, so nothing is answered until a sync works the scope out."""

    code = "scope_not_synced"

    def __init__(self, environment: str):
        super().__init__(f"the lineage of environment '{environment}' has not been worked out for what this "
                         "credential may see: sync it again")
        self.environment = environment
