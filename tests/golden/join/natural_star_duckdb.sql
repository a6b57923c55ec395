-- dialect: duckdb
-- schema: shop.yaml
-- description: SELECT * over a NATURAL JOIN in DuckDB (trial 26): the left side's columns in place, then the right side's others
SELECT * FROM order_items NATURAL JOIN returns
