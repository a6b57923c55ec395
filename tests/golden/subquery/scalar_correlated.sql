-- dialect: postgres
-- schema: shop.yaml
-- description: a correlated scalar subquery: its WHERE (with the outer column) is control lineage of the field that holds it
SELECT c.name, (SELECT MAX(o.amount) FROM orders AS o WHERE o.customer_id = c.customer_id) AS biggest FROM customers AS c
