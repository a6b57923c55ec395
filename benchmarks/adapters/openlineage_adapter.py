"""openlineage-sql: OpenLineage's SQL parser (Rust).  It takes no schema, so it cannot
resolve an unqualified column to its table: fast, but not comparable in what it answers."""

from __future__ import annotations

TOOL = "openlineage-sql"
DISTRIBUTION = "openlineage-sql"
MODULE = "openlineage_sql"
VENV = None
MEASURES = {"openlineage.parse": "openlineage-sql parse (no schema)"}


def prepare(measure, schema, dialect, queries):
    import openlineage_sql

    name = dialect or "generic"

    def parse(sql):
        result = openlineage_sql.parse([sql], name)
        if result.errors:
            raise RuntimeError(str(result.errors[0]))
        return result

    if measure == "openlineage.parse":
        return parse, None
    raise KeyError(measure)
