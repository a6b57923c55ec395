-- dialect: duckdb
-- schema: none
-- description: without the argument's type DuckDB's unnest may expand a struct or a list: read as a list, conservative, said under uncertain
SELECT unnest(items) AS item FROM orders
