-- dialect: postgres
-- schema: shop.yaml
-- description: LATERAL (… ORDER BY … LIMIT 1): the order key picks the row joined to each customer (control)
SELECT c.name, last_order.amount
FROM customers AS c, LATERAL (SELECT o.amount FROM orders AS o WHERE o.customer_id = c.customer_id ORDER BY o.ordered_at DESC LIMIT 1) AS last_order
