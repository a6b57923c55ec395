-- dialect: bigquery
-- schema: shop.yaml
-- description: joining an aggregated derived table: its grouping applies to every output row
SELECT c.name, t.total FROM customers AS c JOIN (SELECT customer_id, SUM(amount) AS total FROM orders GROUP BY customer_id) AS t ON t.customer_id = c.customer_id
