-- dialect: bigquery
-- schema: shop.yaml
-- description: a scalar subquery in WHERE: its value sources are controls
SELECT order_id FROM orders WHERE amount > (SELECT AVG(amount) FROM orders)
