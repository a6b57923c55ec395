-- dialect: snowflake
-- schema: shop.yaml
-- description: the RFC's worked example in Snowflake: output names upper-cased
SELECT customer_id, SUM(amount) AS total_amount FROM orders WHERE status = 'paid' GROUP BY customer_id
