-- dialect: duckdb
-- schema: shop.yaml
-- description: FULL JOIN keeps both sides' rows: a filter inside a side removes rows from the result (control), unlike the same condition in ON
SELECT c.name, o.amount FROM customers AS c FULL JOIN (SELECT customer_id, amount FROM orders WHERE status = 'paid') AS o ON c.customer_id = o.customer_id
