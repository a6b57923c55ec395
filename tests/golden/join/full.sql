-- dialect: snowflake
-- schema: shop.yaml
-- description: FULL OUTER JOIN with COALESCE of both keys
SELECT COALESCE(a.order_id, b.order_id) AS order_id, b.reason FROM orders AS a FULL OUTER JOIN returns AS b ON a.order_id = b.order_id
