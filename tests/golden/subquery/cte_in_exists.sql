-- dialect: postgres
-- schema: shop.yaml
-- description: a CTE read by an IN inside an EXISTS: every level's filter reaches the outer rows
WITH big AS (SELECT order_id FROM orders WHERE amount > 1000) SELECT c.name FROM customers AS c WHERE EXISTS (SELECT 1 FROM orders AS o WHERE o.customer_id = c.customer_id AND o.order_id IN (SELECT order_id FROM big))
