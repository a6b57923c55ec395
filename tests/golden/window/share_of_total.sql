-- dialect: postgres
-- schema: shop.yaml
-- description: amount / SUM(amount) OVER (): the strongest hop (window) wins
SELECT order_id, amount / SUM(amount) OVER () AS share FROM orders
