-- dialect: duckdb
-- schema: shop.yaml
-- description: HAVING status where status is a select alias and a grouped column (trial 27): the grouped column, in every dialect
SELECT customer_id, SUM(amount) AS status FROM orders GROUP BY customer_id, status HAVING status > 'a'
