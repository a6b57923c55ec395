-- dialect: duckdb
-- schema: nested.yaml
-- description: DuckDB strptime
SELECT strptime(raw, '%Y-%m-%d') AS ts FROM events
