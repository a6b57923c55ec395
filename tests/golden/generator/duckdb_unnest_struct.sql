-- dialect: duckdb
-- schema: {"orders": {"order_id": "bigint", "customer": "STRUCT<name VARCHAR, city VARCHAR>", "items": "ARRAY<STRUCT<sku VARCHAR, qty INT>>"}}
-- description: DuckDB's unnest of a STRUCT makes no rows: a column per field, each a nested access of the struct (trial 11), named after the field
SELECT unnest(customer), order_id FROM orders
