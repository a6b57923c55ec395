"""sqlglot: parsing alone, parsing + ``qualify`` (the floor for any sqlglot-based engine that
resolves names), and its ``lineage`` per column and for all columns at once.

Every measure gets the schema as a ready ``MappingSchema`` (as prism gets a ready
``Catalog``): building it from the dict is a once-per-run cost for both.
"""

from __future__ import annotations

TOOL = "sqlglot"
DISTRIBUTION = "sqlglot"
MODULE = "sqlglot"
VENV = None
MEASURES = {
    "sqlglot.parse": "sqlglot parse_one",
    "sqlglot.qualify": "sqlglot parse_one + qualify (floor)",
    "sqlglot.lineage_all": "sqlglot lineage(None, trim_selects=False)",
    "sqlglot.lineage_column": "sqlglot lineage per column",
}


def prepare(measure, schema, dialect, queries):
    import sqlglot
    from sqlglot.lineage import lineage
    from sqlglot.optimizer.qualify import qualify
    from sqlglot.schema import MappingSchema

    mapping = MappingSchema(schema, dialect=dialect)
    if measure == "sqlglot.parse":
        return (lambda sql: sqlglot.parse_one(sql, dialect=dialect)), None
    if measure == "sqlglot.qualify":
        return (lambda sql: qualify(sqlglot.parse_one(sql, dialect=dialect), schema=mapping, dialect=dialect)), None
    if measure == "sqlglot.lineage_all":
        return (lambda sql: lineage(None, sql, mapping, dialect=dialect, trim_selects=False)), None
    if measure == "sqlglot.lineage_column":
        # The documented use: one call per output column, each parsing and qualifying again.
        names = {sql: output_names(sql, mapping, dialect) for _, sql in queries}

        def per_column(sql):
            for name in names[sql]:
                lineage(name, sql, mapping, dialect=dialect)

        return per_column, None
    raise KeyError(measure)


def output_names(sql, schema, dialect) -> list[str]:
    """The output column names as ``lineage`` knows them (after qualify, which names an
    unnamed projection ``_col_N``); empty when the query does not qualify."""
    import sqlglot
    from sqlglot.optimizer.qualify import qualify

    try:
        qualified = qualify(sqlglot.parse_one(sql, dialect=dialect), schema=schema, dialect=dialect,
                            validate_qualify_columns=False, identify=False)
    except Exception:  # noqa: BLE001 - the timed call reports the failure
        return []
    return list(dict.fromkeys(qualified.named_selects))
