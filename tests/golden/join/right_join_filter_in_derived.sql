-- dialect: snowflake
-- schema: shop.yaml
-- description: RIGHT JOIN pads the left side: a filter inside it is join lineage; the preserved side's WHERE stays control
SELECT c.name, o.amount
FROM (SELECT customer_id, amount FROM orders WHERE amount > 100) AS o
RIGHT JOIN (SELECT customer_id, name FROM customers WHERE country = 'NL') AS c ON c.customer_id = o.customer_id
