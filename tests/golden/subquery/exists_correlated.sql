-- dialect: duckdb
-- schema: shop.yaml
-- description: EXISTS reads no value; its rows' dependencies (the correlation) are controls
SELECT c.name FROM customers AS c WHERE EXISTS (SELECT 1 FROM orders AS o WHERE o.customer_id = c.customer_id AND o.status = 'paid')
