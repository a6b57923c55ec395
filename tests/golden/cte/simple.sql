-- dialect: duckdb
-- schema: shop.yaml
-- description: a CTE read once: identity through the reference; its WHERE flows in
WITH paid AS (SELECT customer_id, amount FROM orders WHERE status = 'paid') SELECT customer_id, SUM(amount) AS total FROM paid GROUP BY customer_id
