-- dialect: postgres
-- schema: shop.yaml
-- description: a CTE read twice (self join of the CTE): each side answered through the shared definition
WITH t AS (SELECT customer_id, SUM(amount) AS total FROM orders GROUP BY customer_id) SELECT a.customer_id, a.total, b.total AS other FROM t AS a JOIN t AS b ON a.total < b.total
