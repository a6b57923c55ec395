-- dialect: duckdb
-- schema: shop.yaml
-- description: DISTINCT ON … ORDER BY in a derived table: the latest order per customer; the keys group (grouping), the ORDER BY picks the row kept (control), no sort outside
SELECT latest.amount FROM (SELECT DISTINCT ON (customer_id) customer_id, amount FROM orders ORDER BY customer_id, ordered_at DESC) AS latest
