-- dialect: mysql
-- schema: shop.yaml
-- description: HAVING status where status is a select alias and an ungrouped column (trial 27): MySQL prefers a GROUP BY column, else the alias: control from amount
SELECT customer_id, SUM(amount) AS status FROM orders GROUP BY customer_id HAVING status > 100
