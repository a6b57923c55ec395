-- dialect: duckdb
-- schema: shop.yaml
-- description: a constant field of a filtered query still depends on the filter
SELECT 1 AS flag FROM orders WHERE amount > 0
