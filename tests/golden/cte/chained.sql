-- dialect: bigquery
-- schema: shop.yaml
-- description: a CTE reading an earlier CTE, joined to a table
WITH a AS (SELECT customer_id, amount FROM orders WHERE amount > 0), b AS (SELECT customer_id, SUM(amount) AS s FROM a GROUP BY customer_id) SELECT c.name, b.s FROM b JOIN customers AS c ON c.customer_id = b.customer_id
