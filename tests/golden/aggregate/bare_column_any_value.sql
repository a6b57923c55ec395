-- dialect: mysql
-- schema: shop.yaml
-- description: MySQL lets a non-grouped column through: an implicit ANY_VALUE, value/aggregate
SELECT customer_id, status, SUM(amount) AS total FROM orders GROUP BY customer_id
