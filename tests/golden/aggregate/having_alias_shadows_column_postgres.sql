-- dialect: postgres
-- schema: shop.yaml
-- description: HAVING status where status is a select alias and an ungrouped column (trial 27): Postgres's HAVING sees no select alias, so it is the column (valid only where it depends on the key)
SELECT customer_id, SUM(amount) AS status FROM orders GROUP BY customer_id HAVING status > 100
