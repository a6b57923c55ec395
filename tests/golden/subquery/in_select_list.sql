-- dialect: duckdb
-- schema: shop.yaml
-- description: x IN (subquery) as a field: value from the needle and the subquery output; the subquery's WHERE is control of the field
SELECT order_id, customer_id IN (SELECT customer_id FROM customers WHERE country = 'NL') AS dutch FROM orders
