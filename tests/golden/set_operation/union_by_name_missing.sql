-- dialect: duckdb
-- schema: shop.yaml
-- description: UNION BY NAME with different columns: every column of either input, the missing ones NULL (no source from that input); duplicates collapse (grouping)
SELECT customer_id, amount FROM orders UNION BY NAME SELECT name, customer_id FROM customers
