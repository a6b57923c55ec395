-- dialect: snowflake
-- schema: shop_writes.yaml
-- description: CREATE OR REPLACE TABLE … AS: the new table's columns are the query's
CREATE OR REPLACE TABLE paid_orders AS
SELECT order_id, amount * 100 AS amount_cents FROM orders WHERE status = 'paid'
