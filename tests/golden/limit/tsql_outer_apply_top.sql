-- dialect: tsql
-- schema: shop.yaml
-- description: OUTER APPLY (SELECT TOP (2) … ORDER BY): the order keys pick the matched rows (control), not the result's order
SELECT c.name, x.status
FROM customers AS c
OUTER APPLY (SELECT TOP (2) o.status FROM orders AS o WHERE o.customer_id = c.customer_id ORDER BY o.amount DESC) AS x
ORDER BY c.name
