-- dialect: duckdb
-- schema: shop.yaml
-- description: DuckDB's * LIKE / * NOT LIKE pick columns by name, with case (read by sqlglot as a LIKE of the star: one output per column picked, never one constant column)
SELECT * LIKE '%_id', * NOT LIKE '%e%' FROM orders
