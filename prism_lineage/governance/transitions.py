"""An environment's move from the revision it was last synced at to what a branch brings.

A commit pushed to the repository is not a change set, so no approval reason holds it: an
environment that does not review projects what the branch brings without an approval, and one
that reviews holds it until a person approves that transition.  While it is held the
environment is *not computed*: it is not read at either revision, and its answers say so in
words instead of drawing an empty graph (or the edges of a revision it is leaving).

Which environments review is a setting of the project (``reviews: true`` in ``project.yaml``).
The setting of either revision counts, so a branch can neither lift its own review nor slip in
unreviewed while it turns review on — the same rule the review gate applies to certification.
What the branch brings to an environment is any difference in what it declares, after its own
patches (its tables, views, pipelines, dialect and settings); a change to another environment's
declarations, or to who may see what, brings it nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from .declarations import Environment, Project
from .errors import UnknownEnvironmentError
from .rollup import EnvironmentLineage, environment_of, sync


@dataclass(frozen=True, slots=True)
class Transition:
    """One environment's move from ``base`` to ``proposed`` (None: it is not in that version)."""

    environment: str
    base: Environment | None
    proposed: Environment | None
    approved: bool = False

    @property
    def reviews(self) -> bool:
        return any(env is not None and env.reviews for env in (self.base, self.proposed))

    @property
    def changed(self) -> bool:
        return self.base != self.proposed

    @property
    def held(self) -> bool:
        """Held for review: the environment reviews, the branch changes it, and no person has
        approved the move yet."""
        return self.reviews and self.changed and not self.approved


def transition(base: Project, proposed: Project, environment: str | None = None, *,
               approved: bool = False) -> Transition:
    """The move of ``environment`` (None: the proposed project's only or default one).  An
    environment the branch removes is still named by its base: its removal is a change too."""
    try:
        env = environment_of(proposed, environment)
    except UnknownEnvironmentError:
        if environment is None or base.environment(environment) is None:
            raise
        env = base.environment(environment)
    return Transition(env.name, base.environment(env.name), proposed.environment(env.name), approved)


def held_environments(base: Project, proposed: Project) -> list[str]:
    """The environments of either version that hold what the branch brings, by name."""
    names = dict.fromkeys(e.name for e in (*base.environments, *proposed.environments))
    return [name for name in names if transition(base, proposed, name).held]


def sync_transition(base: Project, proposed: Project, environment: str | None = None, *, approved: bool = False,
                    **options) -> EnvironmentLineage:
    """The environment's lineage after the move: *not computed* while the move is held (named
    with the declarations of the revision it stands at), else ``proposed`` synced (``options``
    as for ``sync``).  An environment the branch removes, once projected, no longer exists."""
    move = transition(base, proposed, environment, approved=approved)
    if move.held:
        standing = base if move.base is not None else proposed
        return sync(standing, move.environment, held_for_review=True)
    if move.proposed is None:
        environment_of(proposed, move.environment)  # raises: the environment is gone
    return sync(proposed, move.environment, **options)


__all__ = ["Transition", "transition", "held_environments", "sync_transition"]
