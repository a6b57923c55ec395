-- dialect: duckdb
-- schema: shop.yaml
-- description: RIGHT JOIN
SELECT o.order_id, c.country FROM orders AS o RIGHT JOIN customers AS c ON o.customer_id = c.customer_id
