-- dialect: postgres
-- schema: shop.yaml
-- description: EXISTS as a field: no value source, its correlation is control of the field
SELECT c.name, EXISTS (SELECT 1 FROM orders AS o WHERE o.customer_id = c.customer_id) AS has_orders FROM customers AS c
