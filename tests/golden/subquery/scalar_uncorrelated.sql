-- dialect: duckdb
-- schema: shop.yaml
-- description: a scalar subquery in the select list: its output is a value input (two paths to amount: the strongest, aggregate, wins)
SELECT order_id, amount - (SELECT AVG(amount) FROM orders) AS diff FROM orders
