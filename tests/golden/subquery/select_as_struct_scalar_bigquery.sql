-- dialect: bigquery
-- schema: shop.yaml
-- description: BigQuery: a scalar (SELECT AS STRUCT ... ORDER BY ... LIMIT 1) subquery: one struct value; its ORDER BY picks the row (control)
SELECT c.customer_id,
  (SELECT AS STRUCT o.order_id, o.amount FROM orders AS o WHERE o.customer_id = c.customer_id ORDER BY o.ordered_at DESC LIMIT 1) AS last_order
FROM customers AS c
