-- dialect: duckdb
-- schema: {"orders": {"order_id": "bigint", "customer": "STRUCT<name VARCHAR, city VARCHAR>", "items": "ARRAY<STRUCT<sku VARCHAR, qty INT>>"}}
-- description: unnest(list of structs, recursive := true): a row per element, a column per field of the element (items[].sku, items[].qty)
SELECT order_id, unnest(items, recursive := true) FROM orders
