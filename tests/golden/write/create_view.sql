-- dialect: bigquery
-- schema: shop_writes.yaml
-- description: CREATE VIEW: the view's columns are the query's; the join and grouping apply to both
CREATE VIEW shop.orders_per_customer AS
SELECT c.name, COUNT(*) AS orders
FROM orders o JOIN customers c ON o.customer_id = c.customer_id
GROUP BY c.name
