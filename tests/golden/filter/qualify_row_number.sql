-- dialect: snowflake
-- schema: shop.yaml
-- description: QUALIFY ROW_NUMBER() OVER (PARTITION BY a ORDER BY b) = 1: control from a and b on every field
SELECT order_id, customer_id FROM orders QUALIFY ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY ordered_at DESC) = 1
