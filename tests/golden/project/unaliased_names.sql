-- dialect: duckdb
-- schema: shop.yaml
-- description: an unaliased expression is named by its SQL text
SELECT amount + 1, LOWER(status), order_id FROM orders
