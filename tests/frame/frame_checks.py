"""Invariants every explained dataframe plan must satisfy (the SQL ones of
``tests/invariants.py`` that do not read SQL text, plus the dataframe API's own):

* **stable**: lowering the plan twice gives the same ids, plan-level graph and answer;
* **closed**, **ids**, **explained**, **ordered**: as for SQL (``tests/invariants.py``);
* **one field per column**: the answer lists the frame's columns, in order;
* **authored at the user's call site**: every relation, field and expression of the plan has
  an origin, in a file outside the ``prism_lineage`` package.
"""

from __future__ import annotations

from pathlib import Path

import prism_lineage
from invariants import check_closed, check_explained, check_ids, check_ordered
from prism_lineage.frame import DataFrame
from prism_lineage.frame.lowering import lower_plan
from prism_lineage.functions import FunctionRegistry
from prism_lineage.ir import walk_relations
from prism_lineage.ir.expressions import iter_tree
from prism_lineage.ir.walk import expressions_of
from prism_lineage.lineage.graph import LineageGraph
from prism_lineage.lineage.graph_format import graph_model

PACKAGE = Path(prism_lineage.__file__).resolve().parent


def check_frame(frame: DataFrame) -> dict:
    """Explain ``frame``, check every invariant, and return the answer (``model_dump()``)."""
    answer = prism_lineage.explain(frame).model_dump()
    registry = FunctionRegistry.default()
    for info in frame.function_infos():
        registry.register(info)
    first, second = lower_plan(frame.plan), lower_plan(frame.plan)
    graphs = [LineageGraph.of(first, registry)], [LineageGraph.of(second, registry)]
    assert graph_model(graphs[0]).model_dump() == graph_model(graphs[1]).model_dump(), \
        "ids or plan-level edges differ between two lowerings"
    graph = graphs[0][0]
    check_closed(graph)
    check_ids(graph)
    stated = answer["statements"][0]
    check_explained(first, stated)
    check_ordered(stated)
    assert [f["name"] for f in stated["fields"]] == frame.columns
    check_authored(first)
    return answer


def check_authored(statement) -> None:
    for relation in walk_relations(statement.root):
        _user_origin(relation.origin, relation.id)
        for field in getattr(relation, "columns", ()):
            _user_origin(field.origin, field.id)
        for expr in expressions_of(relation):
            for node in iter_tree(expr):
                _user_origin(node.origin, node.id)


def _user_origin(origin, target: str) -> None:
    assert origin is not None, f"{target} has no origin"
    assert origin.file is not None and origin.line > 0, f"{target} has no call site"
    assert not Path(origin.file).resolve().is_relative_to(PACKAGE), \
        f"{target}'s origin {origin.render()} is inside the library, not the user's code"
