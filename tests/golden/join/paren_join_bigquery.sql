-- dialect: bigquery
-- schema: shop.yaml
-- description: BigQuery: a join in two levels of parentheses
SELECT o.order_id, c.country FROM ((orders AS o INNER JOIN customers AS c ON c.customer_id = o.customer_id))
