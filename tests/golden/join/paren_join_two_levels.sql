-- dialect: duckdb
-- schema: shop.yaml
-- description: a join wrapped in two levels of parentheses, then joined on: the same left-deep join as without them
SELECT c.name, o.amount, i.quantity
FROM ((customers AS c JOIN orders AS o ON o.customer_id = c.customer_id) JOIN order_items AS i ON i.order_id = o.order_id)
