-- dialect: duckdb
-- schema: shop.yaml
-- description: GROUP BY ALL groups by every non-aggregate select item
SELECT status, customer_id, MAX(amount) AS biggest FROM orders GROUP BY ALL
