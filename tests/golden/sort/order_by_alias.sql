-- dialect: duckdb
-- schema: shop.yaml
-- description: ORDER BY an aggregate's alias: sort lineage from the measure's input, on every field
SELECT customer_id, SUM(amount) AS total FROM orders GROUP BY customer_id ORDER BY total DESC
