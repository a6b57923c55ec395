-- dialect: duckdb
-- schema: nested.yaml
-- description: DuckDB arrays count from 1: items[1] is the first element, shown [0]
SELECT items[1].sku AS first_sku, tags[2] AS second_tag FROM orders
