"""Which order a relation's rows are in (specs/sort-limit-distinct.md).

A ``Sort`` orders rows; the operators that keep the order of their input — ``Project``,
``Filter``, ``Limit`` and ``DISTINCT ON`` (it keeps the first row of each group, in order) —
pass that order on.  Every other operator (a join, an aggregate, a plain ``DISTINCT``, a set
operation, a window, a CTE reference …) makes rows whose order is not its input's.

The lineage rules ask two questions of it: which order a ``Limit`` (or a ``DISTINCT ON``) picks
its rows by — that order's keys decide which rows exist — and which order the statement's own
result shows.
"""

from __future__ import annotations

from .relations import Distinct, Filter, Limit, Project, Relation, Sort

ORDER_KEEPING = (Project, Filter, Limit, Distinct)


def ordered_by(relation: Relation) -> Sort | None:
    """The ``Sort`` whose order the rows of ``relation`` are in, if any."""
    node = relation
    while True:
        if isinstance(node, Sort):
            return node
        if not isinstance(node, ORDER_KEEPING) or (isinstance(node, Distinct) and not node.on):
            return None
        node = node.input
