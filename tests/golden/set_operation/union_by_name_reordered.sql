-- dialect: duckdb
-- schema: shop.yaml
-- description: UNION ALL BY NAME pairs columns by name, not by position: equal widths in another order
SELECT customer_id, amount FROM orders UNION ALL BY NAME SELECT amount, customer_id FROM orders WHERE status = 'void'
