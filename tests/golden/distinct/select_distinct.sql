-- dialect: duckdb
-- schema: shop.yaml
-- description: SELECT DISTINCT collapses rows but changes no value
SELECT DISTINCT country FROM customers
