"""DataHub's ``sqlglot_lineage`` (``acryl-datahub[sql-parser]``), with every table's schema
given to its ``SchemaResolver``.  DataHub pins its own sqlglot, so it runs in its own virtual
environment.  ``sqlglot_lineage`` keeps an LRU cache of its answers keyed by the SQL text: the
cache is cleared before each call (outside the timing) so every timed call does the work."""

from __future__ import annotations

TOOL = "DataHub"
DISTRIBUTION = "acryl-datahub"
MODULE = "datahub.sql_parsing.sqlglot_lineage"
VENV = "datahub"
MEASURES = {"datahub.sqlglot_lineage": "DataHub sqlglot_lineage"}


def prepare(measure, schema, dialect, queries):
    import sqlglot
    from datahub.sql_parsing import sqlglot_lineage as dh
    from datahub.sql_parsing.schema_resolver import SchemaResolver

    if measure != "datahub.sqlglot_lineage":
        raise KeyError(measure)
    resolver = SchemaResolver(platform="postgres", env="PROD")
    for table, columns in schema.items():
        parts = table.split(".")
        name = dh._TableName(database=parts[-3] if len(parts) > 2 else None,
                             db_schema=parts[-2] if len(parts) > 1 else None, table=parts[-1])
        resolver.add_raw_schema_info(resolver.get_urn_for_table(name), dict(columns))
    sql_dialect = sqlglot.Dialect.get_or_raise(dialect)

    def run(sql):
        result = dh.sqlglot_lineage(sql, resolver, override_dialect=sql_dialect)
        error = result.debug_info.error  # a table-level or column-level failure
        if error is not None:
            raise RuntimeError(str(error))
        return result

    return run, dh._sqlglot_lineage_cached.cache_clear
