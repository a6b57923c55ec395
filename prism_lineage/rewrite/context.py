"""What the rewrites of one statement share: the function registry and new ids."""

from __future__ import annotations

from collections import Counter

from ..functions import FunctionRegistry
from ..ir import Relation, walk_relations
from ..ir.expressions import iter_tree
from ..ir.walk import expressions_of


class RewriteContext:
    """The function registry the rewrites consult (it decides which expressions may move
    without changing lineage), the ids already in use, and how often each rewrite fired.

    New targets get ids derived from the authored target they stand for
    (``derived_id``): ``<authored id>/<tag>``, with ``~n`` when that is taken, so a
    rewritten plan has stable ids run after run, like an authored one.
    """

    __slots__ = ("functions", "fired", "_taken")

    def __init__(self, functions: FunctionRegistry | None = None):
        self.functions = functions if functions is not None else FunctionRegistry.default()
        self.fired: Counter[str] = Counter()
        self._taken: set[str] = set()

    def reserve_plan(self, root: Relation) -> None:
        """Mark every id of ``root`` as taken (relations, the fields they create, expressions)."""
        taken = self._taken
        for relation in walk_relations(root):
            taken.add(relation.id)
            for field in getattr(relation, "columns", None) or ():
                taken.add(field.id)
            for expr in expressions_of(relation):
                taken.update(node.id for node in iter_tree(expr))

    def derived_id(self, base: str, tag: str) -> str:
        """A new id for a target standing for the authored target ``base``."""
        candidate = f"{base}/{tag}"
        if candidate in self._taken:
            n = 1
            while f"{candidate}~{n}" in self._taken:
                n += 1
            candidate = f"{candidate}~{n}"
        self._taken.add(candidate)
        return candidate
