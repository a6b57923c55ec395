-- dialect: duckdb
-- schema: shop.yaml
-- description: functions, IN lists and OR in a predicate: every column read is a control
SELECT customer_id FROM orders WHERE LOWER(status) IN ('paid', 'shipped') OR amount IS NULL
