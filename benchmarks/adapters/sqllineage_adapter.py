"""sqllineage (sqlfluff's ``ansi`` grammar), with every table's columns given through a
``DummyMetaDataProvider``.  sqllineage reports column lineage only into a written table, so
each query is read as ``INSERT INTO prism_bench_output <query>``.  Its dependencies (sqlfluff,
sqlalchemy …) are not ours, so it runs in its own virtual environment."""

from __future__ import annotations

TOOL = "sqllineage"
DISTRIBUTION = "sqllineage"
MODULE = "sqllineage"
VENV = "sqllineage"
MEASURES = {"sqllineage.column_lineage": "sqllineage column lineage"}
_SCHEMA = "bench"


def prepare(measure, schema, dialect, queries):
    import logging
    import os
    import warnings

    from sqllineage.core.metadata.dummy import DummyMetaDataProvider
    from sqllineage.runner import LineageRunner

    if measure != "sqllineage.column_lineage":
        raise KeyError(measure)
    warnings.filterwarnings("ignore")
    os.environ["SQLLINEAGE_DEFAULT_SCHEMA"] = _SCHEMA  # unqualified tables are in the metadata's schema
    logging.getLogger("sqllineage").setLevel(logging.ERROR)
    metadata = DummyMetaDataProvider({_qualified(table): list(columns) for table, columns in schema.items()})
    grammar = dialect or "ansi"

    def run(sql):
        runner = LineageRunner(f"INSERT INTO prism_bench_output\n{sql}", dialect=grammar,
                               metadata_provider=metadata, silent_mode=True)
        return runner.get_column_lineage()

    return run, None


def _qualified(table: str) -> str:
    return table if "." in table else f"{_SCHEMA}.{table}"
