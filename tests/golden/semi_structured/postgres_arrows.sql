-- dialect: postgres
-- schema: nested.yaml
-- description: Postgres -> / ->> / #>> paths into JSON: conservative (no declared shape)
SELECT payload -> 'customer' ->> 'id' AS customer_id, payload #>> '{items,0,sku}' AS first_sku FROM orders
