-- dialect: databricks
-- schema: shop.yaml
-- description: QUALIFY in a CTE read by a join: control from the window's keys on every field
WITH latest AS (SELECT customer_id, status FROM orders QUALIFY ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY ordered_at DESC) = 1)
SELECT c.name, latest.status FROM customers c JOIN latest ON latest.customer_id = c.customer_id
