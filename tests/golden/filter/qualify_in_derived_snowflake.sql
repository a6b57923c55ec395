-- dialect: snowflake
-- schema: shop.yaml
-- description: QUALIFY ROW_NUMBER() … = 1 in a derived table picks rows: control from the partition and order keys, for what reads it
SELECT t.customer_id, t.amount
FROM (SELECT customer_id, amount FROM orders QUALIFY ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY ordered_at DESC) = 1) AS t
