-- dialect: duckdb
-- schema: shop.yaml
-- description: HAVING SUM(amount) > 1000 gives control from amount; COUNT(*) has no value source
SELECT customer_id, COUNT(*) AS n FROM orders GROUP BY customer_id HAVING SUM(amount) > 1000
