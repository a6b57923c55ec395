-- dialect: duckdb
-- schema: shop.yaml
-- description: DuckDB matches names without case but shows output columns as written (Total, Status)
SELECT amount AS Total, STATUS FROM orders
