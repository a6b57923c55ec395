-- dialect: snowflake
-- schema: shop.yaml
-- description: INTERSECT: a row's values are in both inputs
SELECT customer_id FROM orders INTERSECT SELECT customer_id FROM customers
