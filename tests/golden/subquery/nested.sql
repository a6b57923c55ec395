-- dialect: snowflake
-- schema: shop.yaml
-- description: a subquery inside a subquery's WHERE
SELECT name FROM customers WHERE customer_id = (SELECT MAX(customer_id) FROM orders WHERE amount > (SELECT AVG(amount) FROM orders))
