-- dialect: duckdb
-- schema: none
-- description: a bare VALUES statement: DuckDB names its columns col0, col1 (measured on DuckDB 2.0.1; field trial 57), no sources
VALUES (1, 'x'), (2, 'y')
