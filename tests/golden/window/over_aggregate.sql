-- dialect: bigquery
-- schema: shop.yaml
-- description: a window over an aggregate: RANK() OVER (ORDER BY SUM(amount)) has window lineage from amount
SELECT customer_id, SUM(amount) AS total, RANK() OVER (ORDER BY SUM(amount) DESC) AS rnk FROM orders GROUP BY customer_id
