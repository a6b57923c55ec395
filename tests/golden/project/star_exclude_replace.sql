-- dialect: duckdb
-- schema: shop.yaml
-- description: DuckDB * EXCLUDE (…) REPLACE (…): dropped columns go, replaced ones are expressions
SELECT * EXCLUDE (status) REPLACE (amount * 100 AS amount) FROM orders
