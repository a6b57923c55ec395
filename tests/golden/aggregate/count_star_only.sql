-- dialect: duckdb
-- schema: shop.yaml
-- description: COUNT(*) of a whole table depends on no column: empty sources, nothing uncertain
SELECT COUNT(*) AS n FROM orders
