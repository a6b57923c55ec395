-- dialect: mysql
-- schema: shop.yaml
-- description: MySQL CONCAT over two tables' columns
SELECT CONCAT(c.name, ' (', c.country, ')') AS label, o.amount FROM customers c JOIN orders o ON o.customer_id = c.customer_id
