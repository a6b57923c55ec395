-- dialect: snowflake
-- schema: shop.yaml
-- description: CUBE
SELECT status, customer_id, COUNT(*) AS n FROM orders GROUP BY CUBE (status, customer_id)
