-- dialect: snowflake
-- schema: shop.yaml
-- description: Snowflake UNION ALL BY NAME: by name, a missing column NULL
SELECT order_id, amount FROM orders UNION ALL BY NAME SELECT amount, order_id, reason FROM returns JOIN orders USING (order_id)
