-- dialect: bigquery
-- schema: {"t": {"id": "INT64", "items": "ARRAY<STRUCT<sku STRING, qty INT64>>"}, "d": {"id": "INT64", "sku": "STRING", "qty": "INT64", "whole": "STRUCT<sku STRING, qty INT64>"}}
-- description: BigQuery's UNNEST of an array of structs is a value table: * lists the struct's fields, the element is read by its alias only (field trial 29)
INSERT INTO d SELECT * EXCEPT (items), it FROM t, UNNEST(items) AS it
