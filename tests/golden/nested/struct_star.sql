-- dialect: duckdb
-- schema: {"orders": {"order_id": "bigint", "customer": "STRUCT<name VARCHAR, city VARCHAR>", "items": "ARRAY<STRUCT<sku VARCHAR, qty INT>>"}}
-- description: s.* of a STRUCT column is one column per field (DuckDB's struct.* notation), each a nested access
SELECT order_id, customer.* FROM orders
