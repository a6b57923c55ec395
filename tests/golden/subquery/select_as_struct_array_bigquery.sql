-- dialect: bigquery
-- schema: shop.yaml
-- description: BigQuery: ARRAY(SELECT AS STRUCT ...) is one value, the struct of the subquery's fields (field trial 10)
SELECT c.customer_id, ARRAY(SELECT AS STRUCT o.order_id, o.amount FROM orders AS o WHERE o.customer_id = c.customer_id) AS customer_orders
FROM customers AS c
