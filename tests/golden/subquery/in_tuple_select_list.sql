-- dialect: duckdb
-- schema: shop.yaml
-- description: a tuple IN as a field: value from both sides' columns
SELECT (customer_id, status) IN (SELECT customer_id, country FROM customers) AS known FROM orders
