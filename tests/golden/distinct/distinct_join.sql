-- dialect: bigquery
-- schema: shop.yaml
-- description: DISTINCT over a join
SELECT DISTINCT c.country FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id
