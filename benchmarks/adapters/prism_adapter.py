"""prism_lineage ``explain``: every output field of every statement, with value and all
indirect kinds, transformation, confidence and the uncertain entries."""

from __future__ import annotations

TOOL = "prism_lineage"
DISTRIBUTION = "prism_lineage"
MODULE = "prism_lineage"
VENV = None
MEASURES = {"prism.explain": "prism_lineage explain (every field)"}


def prepare(measure, schema, dialect, queries):
    import prism_lineage
    from prism_lineage.functions import FunctionRegistry

    catalog = prism_lineage.Catalog.from_mapping(schema)
    functions = FunctionRegistry.default()
    if measure == "prism.explain":
        return (lambda sql: prism_lineage.explain(sql, catalog, dialect, functions=functions)), None
    raise KeyError(measure)
