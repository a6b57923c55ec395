-- dialect: tsql
-- schema: shop.yaml
-- description: CROSS APPLY (SELECT TOP 1 … ORDER BY): the latest order per customer; its ORDER BY picks which row each customer gets (control), it orders nothing the result shows
SELECT c.name, x.amount
FROM customers AS c
CROSS APPLY (SELECT TOP 1 o.amount FROM orders AS o WHERE o.customer_id = c.customer_id ORDER BY o.ordered_at DESC) AS x
