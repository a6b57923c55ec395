-- dialect: bigquery
-- schema: {"orders": {"order_id": "bigint", "customer": "STRUCT<name VARCHAR, city VARCHAR>", "items": "ARRAY<STRUCT<sku VARCHAR, qty INT>>"}}
-- description: BigQuery's o.s.* EXCEPT (…): the struct's fields but those named
SELECT o.customer.* EXCEPT (city) FROM orders AS o
